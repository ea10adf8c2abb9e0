#!/usr/bin/env bash
# `npm test`: makes sure the tests' system dependencies (Debian's redis-server, and chromium for the
# browser test of /verify) are present, type-checks, lints, then runs every test twice: on this
# machine's Node (20, the oldest supported) and on the Node the image ships (24, fetched from the npm
# registry by scripts/image-node.sh). The tests start their own redis-server on a free port and their
# own headless Chromium. Each run's length is printed at its end.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v redis-server >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "redis-server not found: installing Debian's redis-server" >&2
    apt-get update -qq && apt-get install -y -qq redis-server >/dev/null
  else
    echo "redis-server not found: install it (Debian/Ubuntu: sudo apt-get install -y redis-server) and run npm test again" >&2
    exit 1
  fi
fi
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "chromium not found: installing Debian's chromium (the browser test of /verify)" >&2
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium not found: install it (Debian/Ubuntu: sudo apt-get install -y chromium) and run npm test again" >&2
    exit 1
  fi
fi
npx tsc -p tsconfig.json --noEmit
npx biome check .
npx knip --no-progress

IMAGE_NODE="$(bash scripts/image-node.sh)"
run_on() { # <node binary> [vitest arguments…]: the whole suite on that node, child processes included
  local node="$1" started=$SECONDS
  shift
  echo "npm test: the tests on Node $("$node" --version)" >&2
  PATH="$(dirname "$node"):$PATH" "$node" node_modules/vitest/vitest.mjs run "$@"
  echo "npm test: Node $("$node" --version): passed in $((SECONDS - started)) s" >&2
}
run_on "$(command -v node)" "$@"
run_on "$IMAGE_NODE" "$@"
