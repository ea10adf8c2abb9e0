#!/usr/bin/env bash
# `npm test`: makes sure the tests' system dependencies (Debian's redis-server, and chromium for the
# browser test of /verify) are present, type-checks, lints, then runs every test. The tests start
# their own redis-server on a free port and their own headless Chromium.
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
npx vitest run "$@"
