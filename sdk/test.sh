#!/usr/bin/env bash
# Runs the Python, Go and C# SDK suites (the TypeScript SDK runs with `npm test`). Every suite runs
# even when an earlier one fails; the exit status is non-zero if any failed. Offline: no package
# downloads. The end-to-end tests (python tests/test_e2e.py, go e2e_test.go, the C# LiveTests.cs)
# skip here unless DAUTH_E2E_URL is set; `npm test` runs them against a live dauth
# (packages/sdk/test/e2e/liveServer.test.ts, and csharpLive.test.ts for C#), and
# installs each SDK from scratch (packed tarball, wheel in a fresh venv, Go module through a
# `replace`) to run its quick start (packages/sdk/test/e2e/installFromScratch.test.ts).
set -uo pipefail
cd "$(dirname "$0")"

failed=0
result() {
  if [ "$2" -eq 0 ]; then
    echo "sdk/test.sh: $1: PASS"
  else
    echo "sdk/test.sh: $1: FAIL"
    failed=1
  fi
}

echo "=== sdk/python: python3 -m unittest discover ==="
(cd python && python3 -m unittest discover)
status=$?
result "python ($(python3 --version 2>&1))" "$status"

echo "=== sdk/go: gofmt, go vet, go test ==="
(
  cd go || exit 1
  export GOPROXY=off
  unformatted=$(gofmt -l .)
  if [ -n "$unformatted" ]; then
    echo "gofmt would change: $unformatted"
    exit 1
  fi
  go vet ./... && go test -count=1 ./...
)
status=$?
result "go ($(go version 2>&1 | cut -d' ' -f3))" "$status"

echo "=== sdk/csharp: Mono mcs build and tests (csharp/build.sh) ==="
if command -v mcs >/dev/null && command -v mono >/dev/null; then
  bash csharp/build.sh
  status=$?
  version="mono $(mono --version | head -1 | sed -E 's/.*version ([^ ]+).*/\1/')"
else
  echo "mcs and mono are missing: install Debian's mono-devel"
  status=1
  version="no mono"
fi
result "csharp ($version)" "$status"

exit "$failed"
