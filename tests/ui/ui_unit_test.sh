#!/usr/bin/env bash
# The web UI's unit and component tests (ui/src/**/*.test.ts, vitest). Their JUnit report is
# this test's XML_OUTPUT_FILE, so ./dev test counts each vitest case. Needs ASSISTED_TEST_UI_PROJECT (the
# ui/ folder with its npm packages: ./dev test sets it); without it there is nothing to run.
set -euo pipefail
if [ -z "${ASSISTED_TEST_UI_PROJECT:-}" ]; then
  echo "ASSISTED_TEST_UI_PROJECT is not set: run through ./dev test, which installs ui/'s packages"
  exit 0
fi
cd "$ASSISTED_TEST_UI_PROJECT"
export HOME="${TEST_TMPDIR:-/tmp}"
exec node node_modules/vitest/vitest.mjs run --reporter=default --reporter=junit \
  --outputFile.junit="${XML_OUTPUT_FILE:-$TEST_TMPDIR/vitest.xml}"
