#!/usr/bin/env bash
# Generates the Swift client's code (Sources/SoukClient/Generated) from the OpenAPI document
# (Sources/SoukServer/Resources/openapi.json) with swift-openapi-generator, docs/clients.md:
#   scripts/generate-client.sh           regenerate (run it after changing the document, commit the result)
#   scripts/generate-client.sh --check   fail when the checked-in code differs from what the document generates
# The generator is a command-line tool pinned in scripts/openapi-generator/Package.swift and built in
# its own scratch folder (.build-openapi, about a minute and a half the first time), so Souk's own
# build never compiles it. Its configuration (which operations, access level, naming) is
# scripts/openapi-generator/config.yaml; scripts/openapi-generator/prepare.py rewrites the two
# JSON Schema forms its parser refuses. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOL=scripts/openapi-generator
SCRATCH=.build-openapi
SPEC=Sources/SoukServer/Resources/openapi.json
OUT=Sources/SoukClient/Generated
case "${1:-}" in
  "") CHECK=false ;;
  --check) CHECK=true ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

mkdir -p "$SCRATCH"
if ! swift build --package-path "$TOOL" --scratch-path "$SCRATCH" --product swift-openapi-generator \
     >"$SCRATCH/build.log" 2>&1; then
  cat "$SCRATCH/build.log" >&2
  echo "generate-client: building swift-openapi-generator failed (above)" >&2
  exit 1
fi
GENERATOR="$(swift build --package-path "$TOOL" --scratch-path "$SCRATCH" --show-bin-path)/swift-openapi-generator"

WORK="$SCRATCH/client"
rm -rf "$WORK"
mkdir -p "$WORK/Generated"
python3 "$TOOL/prepare.py" "$SPEC" "$WORK/openapi.json"
if ! "$GENERATOR" generate "$WORK/openapi.json" --config "$TOOL/config.yaml" \
     --output-directory "$WORK/Generated" >"$WORK/generate.log" 2>&1; then
  cat "$WORK/generate.log" >&2
  echo "generate-client: swift-openapi-generator failed on $SPEC (above)" >&2
  exit 1
fi

if $CHECK; then
  if ! diff -ru "$OUT" "$WORK/Generated" >&2; then
    echo "generate-client: $OUT is not what $SPEC generates: run scripts/generate-client.sh and commit the result" >&2
    exit 1
  fi
  echo "generate-client: $OUT matches $SPEC"
else
  rm -rf "$OUT"
  mkdir -p "$(dirname "$OUT")"
  cp -R "$WORK/Generated" "$OUT"
  echo "generate-client: wrote $OUT ($(cat "$OUT"/*.swift | wc -l) lines) from $SPEC"
fi
