#!/usr/bin/env bash
# Builds the SDK (Dauth.dll) and its test runner (Dauth.Tests.exe) into build/ with Mono's C#
# compiler, then runs the tests: `./build.sh` (all), `./build.sh pin` (names containing "pin").
# The live tests run only with DAUTH_E2E_URL set (packages/sdk/test/e2e/csharpLive.test.ts sets it).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p build
refs=(-r:System.Net.Http.dll -r:System.Numerics.dll)
# Mono.Cecil (mono-devel's dependency libmono-cecil-private-cil) reads Dauth.dll's type references
# for the .NET Standard 2.1 check (tests/ApiSurfaceTests.cs).
cecil=$(ls /usr/lib/mono/gac/Mono.Cecil/0.11.*/Mono.Cecil.dll 2>/dev/null | head -1)
if [ -z "$cecil" ]; then
  echo "Mono.Cecil 0.11 not found under /usr/lib/mono/gac (Debian: libmono-cecil-private-cil)" >&2
  exit 1
fi
mcs -nologo -warnaserror -nowarn:1591 -langversion:7 -target:library "${refs[@]}" -doc:build/Dauth.xml -out:build/Dauth.dll src/*.cs
mcs -nologo -warnaserror -langversion:7 "${refs[@]}" -r:"$cecil" -r:build/Dauth.dll -out:build/Dauth.Tests.exe tests/*.cs
exec mono --debug build/Dauth.Tests.exe "$@"
