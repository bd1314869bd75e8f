#!/usr/bin/env bash
# Renders deploy/helm/assisted over every values file in tests/values/ with deploy/helm/render
# (Go text/template + sprig + helm's functions: NOT helm, see README "Checking the chart"),
# then check.py validates the values against values.schema.json and every object (see its
# banner). Values that must be refused (tests/refused/*.yaml over tests/values/defaults.yaml,
# first line "# refused: <message
# part>") must fail rendering with that message. Needs Debian's golang-go,
# golang-github-masterminds-sprig-dev, golang-github-ghodss-yaml-dev, python3-yaml and
# python3-jsonschema (./dev installs them).
set -euo pipefail

RUNFILES=${TEST_SRCDIR:-$PWD/..}/${TEST_WORKSPACE:-assisted}
HELM_DIR="$RUNFILES/deploy/helm"
TMP=${TEST_TMPDIR:-$(mktemp -d)}
PYTHON=/usr/bin/python3  # Debian's, with python3-yaml and python3-jsonschema

# Build the renderer from Debian's Go sources (GOPATH mode, no module downloads).
GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$TMP/gocache" GOFLAGS= HOME="$TMP" \
  go build -o "$TMP/render" "$HELM_DIR/render/render.go"

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
for values in "$HELM_DIR"/tests/values/*.yaml; do
  scenario=$(basename "$values" .yaml)
  cp "$values" "$TMP/rendered/$scenario.values.yaml"
  if ! "$TMP/render" "$HELM_DIR/assisted" release ns "$values" >"$TMP/rendered/$scenario.yaml" \
    2>"$TMP/$scenario.err"; then
    echo "FAIL $scenario: rendering failed: $(cat "$TMP/$scenario.err")"
    status=1
  fi
done
"$PYTHON" "$HELM_DIR/tests/check.py" "$HELM_DIR/assisted/values.schema.json" \
  "$HELM_DIR/assisted/values.yaml" "$TMP/flags" "$TMP/rendered" "$RUNFILES/deploy/images/build.sh" ||
  status=1

for values in "$HELM_DIR"/tests/refused/*.yaml; do
  scenario=$(basename "$values" .yaml)
  want=$(sed -n '1s/^# refused: //p' "$values")
  if "$TMP/render" "$HELM_DIR/assisted" release ns "$HELM_DIR/tests/values/defaults.yaml" "$values" >/dev/null 2>"$TMP/$scenario.err"; then
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
