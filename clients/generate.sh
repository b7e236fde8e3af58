#!/usr/bin/env bash
# Regenerates the generated part of each client library from docs/openapi.json:
#   clients/typescript/src/generated/  @hey-api/openapi-ts (pinned in typescript/package.json,
#                                      installed by `npm ci` there), settings in
#                                      typescript/openapi-ts.config.mjs
#   clients/python/envelope_client/    openapi-python-client and ruff (pinned below), settings in
#                                      python/openapi-python-client.yaml; the hand-written
#                                      modules listed in HAND_WRITTEN are kept
# Everything else in clients/ is written by hand. Run it after changing docs/openapi.json and
# commit the result: envelope-server/tests/openapi/clients checks that the committed code is
# what this script makes.
#
# Usage: clients/generate.sh [OUT]
#   OUT  a directory laid out like clients/ to write into instead (the freshness test passes a
#        copy of the committed code)
set -euo pipefail

PY_GENERATOR_VERSION=0.29.1
RUFF_VERSION=0.17.6
# Modules of envelope_client that no generator writes.
HAND_WRITTEN=(webhooks.py helpers.py py.typed)

here="$(cd "$(dirname "$0")" && pwd)"
spec="$(dirname "$here")/docs/openapi.json"
out="$(cd "${1:-$here}" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "generate.sh: $*" >&2
  exit 1
}

# Generated code is only reproducible with the pinned generators.
generator="$here/typescript/node_modules/.bin/openapi-ts"
[ -x "$generator" ] || fail "run 'npm ci' in clients/typescript first (scripts/install-test-deps.sh does)"
command -v openapi-python-client >/dev/null ||
  fail "openapi-python-client $PY_GENERATOR_VERSION is not installed (scripts/install-test-deps.sh installs it)"
have="$(openapi-python-client --version | awk '{print $NF}')"
[ "$have" = "$PY_GENERATOR_VERSION" ] ||
  fail "openapi-python-client is $have, not $PY_GENERATOR_VERSION (scripts/install-test-deps.sh installs it)"
have="$(ruff --version | awk '{print $NF}')"
[ "$have" = "$RUFF_VERSION" ] ||
  fail "ruff is $have, not $RUFF_VERSION (scripts/install-test-deps.sh installs it)"

# TypeScript: the generator empties its output directory itself.
(
  cd "$here/typescript"
  "$generator" --file openapi-ts.config.mjs --input "$spec" \
    --output "$out/typescript/src/generated" --no-log-file --silent
)

# Python: generated in a directory of its own (ruff, which the generator runs, must find no
# settings of ours above it), then put in place around the hand-written modules.
cp "$spec" "$tmp/openapi.json"
(
  cd "$tmp"
  RUFF_NO_CACHE=true openapi-python-client generate --path openapi.json \
    --config "$here/python/openapi-python-client.yaml" \
    --meta none --output-path envelope_client >"$tmp/generator.log" 2>&1 ||
    { cat "$tmp/generator.log" >&2; exit 1; }
)
if grep -q Warning "$tmp/generator.log"; then
  cat "$tmp/generator.log" >&2
  fail "openapi-python-client left parts of the document out"
fi
rm -rf "$tmp/envelope_client/.ruff_cache"
pkg="$out/python/envelope_client"
mkdir -p "$pkg"
for hand in "${HAND_WRITTEN[@]}"; do
  if [ -e "$pkg/$hand" ]; then mv "$pkg/$hand" "$tmp/$hand"; fi
done
rm -rf "$pkg"
mv "$tmp/envelope_client" "$pkg"
for hand in "${HAND_WRITTEN[@]}"; do
  if [ -e "$tmp/$hand" ]; then mv "$tmp/$hand" "$pkg/$hand"; fi
done
echo "generated: $out/typescript/src/generated, $pkg"
