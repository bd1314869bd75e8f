#!/usr/bin/env bash
# Every bench runs to the end at its smallest size and its last line is one JSON object with
# its name ("bench") and the core count ("cores"): `./dev bench NAME` users and scripts read
# only that line, and a bench whose figures are lost (a format string missing arguments prints
# nothing) must fail here, not in someone's measurement run.
set -uo pipefail

BENCH_DIR="${TEST_SRCDIR}/${TEST_WORKSPACE}/bench"
FIXTURES="${TEST_SRCDIR}/${TEST_WORKSPACE}/tests/fixtures"
WORK=$(mktemp -d "${TEST_TMPDIR:-/tmp}/bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

RUNS=(
  "grpc_health --duration=200ms"
  "http_file --size=1048576 --file=$WORK/file"
  "image --size=16777216 --dir=$WORK/image"
  "installgen"
  "orchestrator_core --hosts=50"
  "inventory --duration=1s --clients=2"
  "gateway --duration=1s --connections=2"
  "fleet --agents=5 --profile=$FIXTURES/profiles/fleet.json --timeout=60s"
  "install --clusters=1 --stage-delay=0s --timeout=120s"
  "agents --agents=10 --clusters=1 --steady=1s --settle=0s --timeout=60s"
  "agents --agents=10 --clusters=2 --steady=1s --settle=0s --timeout=60s --replicas=2"
  "lost_hosts --agents=20 --frozen-percent=10 --settle=0s --keepalive-time=2s --keepalive-timeout=2s --watch-after=5s --timeout=60s"
)
# ui_latency drives ui/ (built, with its npm packages: outside Bazel) in Chromium; ./dev test
# passes its folder, as to tests/ui.
if [ -n "${ASSISTED_TEST_UI_PROJECT:-}" ]; then
  RUNS+=("ui_latency --hosts=3 --samples=2 --timeout=10m")
else
  echo "skip ui_latency: ASSISTED_TEST_UI_PROJECT is not set (./dev test sets it)"
fi

passed=0
failed=0
for run in "${RUNS[@]}"; do
  read -r -a argv <<<"$run"
  name=${argv[0]}
  out="$WORK/$name.out"
  # shellcheck disable=SC2068  # the words of one command line
  "$BENCH_DIR/$name" ${argv[@]:1} >"$out" 2>&1
  status=$?
  if python3 - "$name" "$status" "$out" <<'PY'; then
import json, sys
name, status, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = [l for l in open(path, encoding="utf-8", errors="replace").read().splitlines()]
last = lines[-1] if lines else ""
try:
    figures = json.loads(last)
except ValueError:
    figures = None
problems = []
if status != 0:
    problems.append(f"exit status {status}")
if not isinstance(figures, dict):
    problems.append(f"last line is not a JSON object: {last[:200]!r}")
else:
    if figures.get("bench") != name:
        problems.append(f"\"bench\" is {figures.get('bench')!r}, not {name!r}")
    if not isinstance(figures.get("cores"), int) or figures["cores"] < 1:
        problems.append("no core count (\"cores\")")
if problems:
    print(f"FAIL {name}: " + "; ".join(problems))
    print("".join(l + "\n" for l in lines[-15:]))
    sys.exit(1)
print(f"ok   {name}: {len(figures)} figures")
PY
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
done
echo "$passed benches ended with their JSON line, $failed did not"
[ "$failed" -eq 0 ]
