#!/usr/bin/env bash
# The container image, checked without a Docker daemon: reads the Dockerfile and performs its steps as
# written in a temporary directory (each stage gets its own root; COPY takes only what it names, from
# the context or from another stage; RUN runs in WORKDIR with the stage's ENV), then starts the run
# stage's ENTRYPOINT (+ CMD) in its WORKDIR as its USER (a non-root account of this machine: the same
# name when it exists, else `nobody`; as yourself when not root), with a minimal environment (PATH,
# HOME, the stage's ENV, a free PORT, LOG_LEVEL=info), stdin held open (so the console demo, which is
# what the image runs with nothing configured, keeps serving), waits for GET /healthz 200, runs the
# HEALTHCHECK command, stops it with SIGTERM and expects exit 0. Anything the program needs at run time
# that the Dockerfile does not copy makes it fail. An instruction it does not know fails too: teach it
# here before using it in the Dockerfile, so the two never drift.
#
#   bash scripts/check-image.sh            (after `npm ci`; CI runs it from .ci/run)
#   KEEP=1 bash scripts/check-image.sh     keep the temporary directory to look at
#
# Node is the image's: the FROM tag's version fetched from the npm registry (scripts/image-node.sh),
# for the RUN lines and the program alike. RUN's npm is the image's too (node:24.21.0 ships npm
# 11.19.0), fetched by npx, as test/integration/container-build.test.ts does; IMAGE_NPM=npm@x.y.z
# changes it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DOCKERFILE="${DOCKERFILE:-$ROOT/Dockerfile}"
IMAGE_NPM="${IMAGE_NPM:-npm@11.19.0}"
READY_WITHIN_S="${READY_WITHIN_S:-30}"
NPX="$(command -v npx)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/opsbot-image-XXXXXX")"
chmod 755 "$WORK" # the run account must reach the run stage's files
# The image's node, where the run account can reach it (npx's cache is in the caller's home).
mkdir -p "$WORK/bin"
FETCHED_NODE="$(DOCKERFILE="$DOCKERFILE" bash "$ROOT/scripts/image-node.sh")"
ln "$FETCHED_NODE" "$WORK/bin/node" 2>/dev/null || cp "$FETCHED_NODE" "$WORK/bin/node"
chmod 755 "$WORK/bin/node"
NODE="$WORK/bin/node"
BOT_PID=""
cleanup() {
  if [ -n "$BOT_PID" ] && kill -0 "$BOT_PID" 2>/dev/null; then kill -KILL "$BOT_PID" 2>/dev/null || true; fi
  if [ -n "${KEEP:-}" ]; then echo "check-image: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM # the EXIT trap then stops the program and removes the directory
fail() {
  echo "check-image: FAIL: $*" >&2
  exit 1
}
step() { echo "check-image: $*" >&2; }

# --- the account that runs the program -----------------------------------------------------------
IS_ROOT=0
[ "$(id -u)" = "0" ] && IS_ROOT=1
# "uid:gid home" of a Dockerfile user name on this machine: the same name, else nobody.
account() {
  local name="${1%%:*}" entry
  entry="$(getent passwd "$name" || getent passwd nobody || true)"
  [ -n "$entry" ] || fail "no account '$name' or 'nobody' on this machine"
  echo "$(echo "$entry" | cut -d: -f3):$(echo "$entry" | cut -d: -f4) $(echo "$entry" | cut -d: -f6)"
}

# --- the Dockerfile as the builder reads it: comments dropped, `\` continuations joined ----------
mapfile -t LINES < <(awk '
  { sub(/^[ \t]+/, ""); sub(/[ \t\r]+$/, "") }
  pending == "" && ($0 == "" || /^#/) { next }
  /\\$/ { line = substr($0, 1, length($0) - 1); sub(/[ \t]+$/, "", line); pending = pending line " "; next }
  { print pending $0; pending = "" }
  END { if (pending != "") print pending }
' "$DOCKERFILE")

# The npm of the image, for RUN lines (on the image's node: $WORK/bin comes first on their PATH).
printf '#!/bin/sh\nexec "%s" --yes %s "$@"\n' "$NPX" "$IMAGE_NPM" >"$WORK/bin/npm"
chmod 755 "$WORK/bin/npm"

declare -A STAGE_ROOT=() # stage name or index -> its root directory
STAGE=-1
ROOTDIR=""
WORKDIR="/"
declare -a ENVV=()
declare -a ENTRY=()
declare -a CMDV=()
USER_NAME="root"
HEALTHCHECK=""

# A path of the current stage (absolute, or relative to WORKDIR) on this machine.
in_stage() {
  local root="$1" path="$2"
  case "$path" in
  /*) echo "$root$path" ;;
  *) echo "$root${WORKDIR%/}/$path" ;;
  esac
}

# The .dockerignore leaves these out of the context: a COPY naming one would fail in a real build.
IGNORED=()
if [ -f "$ROOT/.dockerignore" ]; then
  while IFS= read -r pattern; do
    pattern="${pattern%$'\r'}"
    [ -z "$pattern" ] || [ "${pattern:0:1}" = "#" ] || IGNORED+=("${pattern%/}")
  done <"$ROOT/.dockerignore"
fi
ignored() {
  local source="${1#./}" pattern
  for pattern in "${IGNORED[@]}"; do
    # shellcheck disable=SC2053 # the pattern is a glob on purpose
    [[ "$source" == $pattern || "$source" == $pattern/* ]] && return 0
  done
  return 1
}

json_argv() { # an exec-form JSON array, one element per line (NUL-free, newline-free arguments)
  "$NODE" -e '
    const a = JSON.parse(process.argv[1]);
    if (!Array.isArray(a) || !a.every((s) => typeof s === "string" && !s.includes("\n"))) process.exit(2);
    process.stdout.write(a.join("\n"));
  ' "$1" || fail "not an exec-form JSON array: $1"
}

do_copy() {
  local args="$1" from="" chown=""
  while [[ "$args" =~ ^--([a-z-]+)=([^[:space:]]+)[[:space:]]+(.*)$ ]]; do
    case "${BASH_REMATCH[1]}" in
    from) from="${BASH_REMATCH[2]}" ;;
    chown) chown="${BASH_REMATCH[2]}" ;;
    *) fail "COPY --${BASH_REMATCH[1]} is not followed by this script" ;;
    esac
    args="${BASH_REMATCH[3]}"
  done
  [ "${args:0:1}" != "[" ] || fail "COPY in JSON form is not followed by this script: $args"
  local -a words
  read -r -a words <<<"$args"
  [ "${#words[@]}" -ge 2 ] || fail "COPY needs a source and a destination: $args"
  local dest="${words[-1]}" source match
  local -a sources=("${words[@]:0:${#words[@]}-1}")
  local target
  target="$(in_stage "$ROOTDIR" "$dest")"
  local into_dir=0
  [[ "$dest" == */ || "${#sources[@]}" -gt 1 ]] && into_dir=1
  [ "$into_dir" = 1 ] && mkdir -p "$target"
  for source in "${sources[@]}"; do
    local -a matches=()
    if [ -n "$from" ]; then
      local other="${STAGE_ROOT[$from]:-}"
      [ -n "$other" ] || fail "COPY --from=$from: no such stage before this one"
      # Another stage's path is absolute, or relative to that stage's root.
      case "$source" in /*) ;; *) source="/$source" ;; esac
      shopt -s nullglob
      matches=("$other"$source)
      shopt -u nullglob
    else
      ignored "$source" && fail "COPY $source: .dockerignore leaves it out of the build context"
      shopt -s nullglob
      matches=("$ROOT"/$source)
      shopt -u nullglob
    fi
    # A source without wildcards stays as written whether it exists or not: keep what exists.
    local -a found=()
    for match in "${matches[@]}"; do [ -e "$match" ] && found+=("$match"); done
    matches=("${found[@]}")
    [ "${#matches[@]}" -gt 0 ] || fail "COPY ${from:+--from=$from }$source: no such file (the real build fails here too)"
    for match in "${matches[@]}"; do
      local to="$target" placed
      [ "${#matches[@]}" -gt 1 ] && to="${target%/}/"
      if [ -d "$match" ]; then
        # A directory's contents go into the destination (Docker's rule).
        mkdir -p "$to"
        if [ -n "$from" ]; then
          # The stage is done with it: moved, not copied (node_modules is large).
          find "$match" -mindepth 1 -maxdepth 1 -exec mv -t "$to" {} +
        else
          cp -a "$match/." "$to/"
        fi
        placed="$to"
      elif [[ "$to" == */ || "$into_dir" = 1 ]]; then
        mkdir -p "$to"
        cp -a "$match" "$to/"
        placed="${to%/}/$(basename "$match")"
      else
        mkdir -p "$(dirname "$to")"
        cp -a "$match" "$to"
        placed="$to"
      fi
      if [ -n "$chown" ] && [ "$IS_ROOT" = 1 ]; then
        local owner
        owner="$(account "$chown")"
        chown -R "${owner%% *}" "$placed"
      fi
    done
  done
}

for line in "${LINES[@]}"; do
  keyword="${line%%[[:space:]]*}"
  keyword="${keyword^^}"
  rest="${line#"${line%%[[:space:]]*}"}"
  rest="${rest#"${rest%%[![:space:]]*}"}"
  case "$keyword" in
  FROM)
    read -r -a from <<<"$rest"
    STAGE=$((STAGE + 1))
    ROOTDIR="$WORK/stage$STAGE"
    mkdir -p "$ROOTDIR"
    chmod 755 "$ROOTDIR"
    STAGE_ROOT[$STAGE]="$ROOTDIR"
    [ "${#from[@]}" -ge 3 ] && [ "${from[1]^^}" = "AS" ] && STAGE_ROOT[${from[2]}]="$ROOTDIR"
    WORKDIR="/"
    ENVV=()
    ENTRY=()
    CMDV=()
    USER_NAME="root"
    HEALTHCHECK=""
    step "stage $STAGE: FROM $rest"
    ;;
  WORKDIR)
    case "$rest" in /*) WORKDIR="$rest" ;; *) WORKDIR="${WORKDIR%/}/$rest" ;; esac
    mkdir -p "$ROOTDIR$WORKDIR"
    ;;
  ENV)
    read -r -a pairs <<<"$rest"
    for pair in "${pairs[@]}"; do
      [[ "$pair" == *=* && "$pair" != *[\"\']* ]] || fail "ENV in a form this script does not follow (use KEY=value, unquoted): $rest"
      ENVV+=("$pair")
    done
    ;;
  COPY)
    step "COPY $rest"
    do_copy "$rest"
    ;;
  RUN)
    [ "${rest:0:1}" != "[" ] || fail "RUN in JSON form is not followed by this script: $rest"
    step "RUN $rest"
    (
      cd "$ROOTDIR$WORKDIR"
      env "${ENVV[@]}" PATH="$WORK/bin:$PATH" npm_config_prefer_offline=true npm_config_audit=false \
        npm_config_fund=false npm_config_update_notifier=false sh -c "$rest"
    ) || fail "RUN $rest"
    ;;
  USER) USER_NAME="$rest" ;;
  EXPOSE | LABEL) ;;
  HEALTHCHECK)
    [[ "$rest" =~ (^|[[:space:]])CMD[[:space:]]+(.*)$ ]] || fail "HEALTHCHECK without CMD: $rest"
    HEALTHCHECK="${BASH_REMATCH[2]}"
    ;;
  ENTRYPOINT) mapfile -t ENTRY < <(json_argv "$rest") ;;
  CMD) mapfile -t CMDV < <(json_argv "$rest") ;;
  *) fail "Dockerfile instruction $keyword is not followed by scripts/check-image.sh: teach it there first" ;;
  esac
done

[ "$STAGE" -ge 0 ] || fail "no FROM in $DOCKERFILE"
[ "${#ENTRY[@]}" -gt 0 ] || fail "the last stage has no ENTRYPOINT"
APP="$ROOTDIR$WORKDIR"
[ ! -e "$APP/src" ] || fail "the run stage holds the sources ($WORKDIR/src): it should hold only the build"

# --- start it as the image does --------------------------------------------------------------------
PORT="$("$NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
AS_USER=()
RUN_HOME="$WORK/home"
if [ "$IS_ROOT" = 1 ] && [ "${USER_NAME%%:*}" != "root" ] && [ "${USER_NAME%%:*}" != "0" ]; then
  read -r ids RUN_HOME <<<"$(account "$USER_NAME")"
  if command -v setpriv >/dev/null; then
    AS_USER=(setpriv "--reuid=${ids%%:*}" "--regid=${ids##*:}" --clear-groups)
  elif command -v runuser >/dev/null; then
    AS_USER=(runuser -u "$(getent passwd "${ids%%:*}" | cut -d: -f1)" --)
  else
    fail "running as root without setpriv or runuser: cannot drop to USER $USER_NAME"
  fi
  step "as uid:gid $ids (USER $USER_NAME)"
elif [ "$IS_ROOT" = 1 ]; then
  step "as root (the Dockerfile's USER is $USER_NAME)"
else
  step "as $(id -un) (not root: cannot switch to USER $USER_NAME)"
  mkdir -p "$RUN_HOME"
fi
RUN_ENV=(
  "PATH=$(dirname "$NODE"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  "HOME=$RUN_HOME"
  "${ENVV[@]}"
  "PORT=$PORT"
  "LOG_LEVEL=info"
)
# The console demo reads stdin until its end: a FIFO held open for reading and writing never ends.
mkfifo "$WORK/stdin"
exec 3<>"$WORK/stdin"
step "start: ${ENTRY[*]} ${CMDV[*]} (in $WORKDIR, PORT=$PORT)"
(cd "$APP" && exec "${AS_USER[@]}" env -i "${RUN_ENV[@]}" "${ENTRY[@]}" "${CMDV[@]}") <&3 >"$WORK/output.log" 2>&1 &
BOT_PID=$!

healthz() {
  "$NODE" -e 'fetch(process.argv[1]).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))' \
    "http://127.0.0.1:$PORT/healthz"
}
deadline=$((SECONDS + READY_WITHIN_S))
until healthz; do
  if ! kill -0 "$BOT_PID" 2>/dev/null; then
    wait "$BOT_PID" && code=0 || code=$?
    BOT_PID=""
    tail -n 40 "$WORK/output.log" >&2
    fail "the program exited ($code) before /healthz answered 200"
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    tail -n 40 "$WORK/output.log" >&2
    fail "/healthz did not answer 200 within ${READY_WITHIN_S}s"
  fi
  sleep 0.5
done
step "GET /healthz: 200"

if [ -n "$HEALTHCHECK" ]; then
  (cd "$APP" && "${AS_USER[@]}" env -i "${RUN_ENV[@]}" sh -c "$HEALTHCHECK") || fail "HEALTHCHECK CMD failed: $HEALTHCHECK"
  step "HEALTHCHECK CMD: passed"
fi

kill -TERM "$BOT_PID"
wait "$BOT_PID" && code=0 || code=$?
BOT_PID=""
if [ "$code" != 0 ]; then
  tail -n 40 "$WORK/output.log" >&2
  fail "SIGTERM: exited $code, expected 0"
fi
grep -q '"msg":"stopped"' "$WORK/output.log" || fail "SIGTERM: no \"stopped\" log line"
step "SIGTERM: stopped, exit 0"
step "OK"
