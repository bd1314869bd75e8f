#!/usr/bin/env bash
# Checks deploy/monitoring with promtool (Debian's prometheus; ./dev test installs it): the alert
# rules with `promtool check rules`, and every query of the Grafana dashboard as well, each
# written into a recording rule (Grafana's $__range and $__interval read as 1h) so promtool
# parses it. Which metrics exist is tests/integration:observability_pg_test's part.
set -euo pipefail
RUNFILES=${TEST_SRCDIR:-$PWD/..}/${TEST_WORKSPACE:-assisted}
DIR="$RUNFILES/deploy/monitoring"
TMP=${TEST_TMPDIR:-$(mktemp -d)}
command -v promtool >/dev/null || { echo "no promtool: install Debian's prometheus (./dev test does)"; exit 1; }

promtool check rules "$DIR/alerts.yaml"

/usr/bin/python3 - "$DIR/grafana-dashboard.json" "$TMP/dashboard-rules.yaml" <<'PY'
import json, sys
dashboard = json.load(open(sys.argv[1]))
rules = []
def panels(items):
    for panel in items:
        yield panel
        yield from panels(panel.get("panels", []))
for panel in panels(dashboard["panels"]):
    for target in panel.get("targets", []):
        expr = target["expr"].replace("$__range", "1h").replace("$__interval", "1m")
        rules.append({"record": f"dashboard:panel_{panel['id']}_{target['refId']}", "expr": expr})
if not rules:
    sys.exit("the dashboard has no queries")
# JSON is YAML: promtool reads this as a rule file.
json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, open(sys.argv[2], "w"), indent=1)
print(f"{len(rules)} dashboard queries")
PY
promtool check rules "$TMP/dashboard-rules.yaml"
