#!/usr/bin/env bash
# Builds the SDK (Dauth.dll) and its test runner (Dauth.Tests.exe) into build/ with Mono's C#
# compiler, then runs the tests: `./build.sh` (all), `./build.sh pin` (names containing "pin").
# The live tests run only with DAUTH_E2E_URL set (packages/sdk/test/e2e/csharpLive.test.ts sets it).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p build
refs=(-r:System.Net.Http.dll -r:System.Numerics.dll)
mcs -nologo -warnaserror -nowarn:1591 -langversion:7 -target:library "${refs[@]}" -doc:build/Dauth.xml -out:build/Dauth.dll src/*.cs
mcs -nologo -warnaserror -langversion:7 "${refs[@]}" -r:build/Dauth.dll -out:build/Dauth.Tests.exe tests/*.cs
exec mono --debug build/Dauth.Tests.exe "$@"
