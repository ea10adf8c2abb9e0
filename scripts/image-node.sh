#!/usr/bin/env bash
# The Node the image ships, fetched from the npm registry (the `node` package carries the official
# binary; no other network): prints the path of its `node`. The version is the Dockerfile's FROM tag
# (node:24.21.0-trixie-slim → node@24.21.0), so what the tests and scripts/check-image.sh run on and
# what the image ships never drift. Cached by npx after the first call.
#
#   bash scripts/image-node.sh             the binary's path
#   bash scripts/image-node.sh --version   its version as the Dockerfile names it (24.21.0)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
version="$(sed -n 's/^FROM[[:space:]]\{1,\}node:\([0-9]\{1,\}\.[0-9]\{1,\}\.[0-9]\{1,\}\)-.*/\1/p' "${DOCKERFILE:-$ROOT/Dockerfile}" | head -n 1)"
if [ -z "$version" ]; then
  echo "image-node: the Dockerfile has no FROM node:<major.minor.patch>-… line" >&2
  exit 1
fi
if [ "${1:-}" = "--version" ]; then
  echo "$version"
  exit 0
fi
npx --yes --package "node@$version" node -p process.execPath
