# shellcheck shell=bash
# Helpers shared by scripts/cluster, scripts/flink and scripts/kafka. Sourced, never run.
# Bash, not sh: arrays and [[ ]] are used throughout.

# The project root (scripts/lib/../..), for the scripts that source this file.
# shellcheck disable=SC2034
FLINKSS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

die() {
  # Every error names the file or port concerned and what to do; exit 1 unless told otherwise.
  echo "error: $1" >&2
  exit "${2:-1}"
}

info() {
  echo "$*" >&2
}

require_command() {
  # $1: command, $2: the Debian package that provides it.
  command -v "$1" >/dev/null 2>&1 || die "'$1' not found on PATH; install it (apt-get install -y $2)."
}

require_java() {
  require_command java openjdk-17-jdk-headless
  local version
  version="$(java -version 2>&1 | sed -n 's/.* version "\([0-9]*\).*/\1/p' | head -n 1)"
  if [[ -z "$version" || "$version" -lt 17 ]]; then
    die "Java 17 or newer is needed, found '$(java -version 2>&1 | head -n 1)'; install openjdk-17-jdk-headless or set PATH."
  fi
}

# Prints who listens on TCP port $1 ("pid 123 (java ...)"), or nothing if nobody does or no tool can tell.
port_owner() {
  local port="$1" line pid
  if command -v ss >/dev/null 2>&1; then
    line="$(ss -ltnpH "sport = :$port" 2>/dev/null | head -n 1)"
    pid="$(sed -n 's/.*pid=\([0-9]*\).*/\1/p' <<<"$line" | head -n 1)"
  fi
  if [[ -z "${pid:-}" ]] && command -v lsof >/dev/null 2>&1; then
    pid="$(lsof -nP -t -iTCP:"$port" -sTCP:LISTEN 2>/dev/null | head -n 1)"
  fi
  if [[ -n "${pid:-}" ]]; then
    echo "pid $pid ($(ps -o args= -p "$pid" 2>/dev/null | cut -c1-120))"
  fi
}

# True if something accepts TCP connections on 127.0.0.1:$1 or listens on the port on any address.
port_in_use() {
  local port="$1"
  if command -v ss >/dev/null 2>&1; then
    [[ -n "$(ss -ltnH "sport = :$port" 2>/dev/null)" ]] && return 0
  fi
  # Fallback without ss: try to connect (bash's /dev/tcp); a refused connection means free.
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

# Dies with the port, its purpose and its owner when the port is taken.
require_free_port() {
  local port="$1" purpose="$2" owner
  if port_in_use "$port"; then
    owner="$(port_owner "$port")"
    die "port $port ($purpose) is already in use${owner:+ by $owner}. Stop that process, or choose another port ($3)."
  fi
}

# True if pid $1 is alive and its command line contains every further argument.
pid_matches() {
  local pid="$1" cmdline
  shift
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ -r "/proc/$pid/cmdline" ]] || return 1
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  local needle
  for needle in "$@"; do
    [[ "$cmdline" == *"$needle"* ]] || return 1
  done
}

# Sends TERM to pid $1, waits up to $2 seconds, then KILL. Only call after pid_matches.
stop_pid() {
  local pid="$1" grace="${2:-20}" waited=0
  kill -TERM "$pid" 2>/dev/null || return 0
  while kill -0 "$pid" 2>/dev/null; do
    if ((waited >= grace * 10)); then
      info "  pid $pid did not stop within ${grace}s after TERM; sending KILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}

# Resident set size of pid $1 in MiB (empty if gone).
rss_mib() {
  local kb
  kb="$(ps -o rss= -p "$1" 2>/dev/null | tr -d ' ')"
  [[ -n "$kb" ]] && echo $((kb / 1024))
}

# Copies the dependencies of pom $1 into folder $2 with Maven, once per content of the pom and of
# versions/pom.xml (its parent, where the versions are): a checksum of both is kept beside the
# jars, so editing either re-assembles the folder.
assemble_jars() {
  local pom="$1" dest="$2" stamp sum tmp
  stamp="$dest/.pom.sha256"
  sum="$(cat "$pom" "$FLINKSS_ROOT/versions/pom.xml" | sha256sum | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$sum" ]]; then
    return 0
  fi
  require_command mvn maven
  info "Assembling $(basename "$(dirname "$pom")") jars from Maven Central into $dest (once) ..."
  tmp="$dest.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  if ! mvn -q -B -f "$pom" dependency:copy-dependencies -DoutputDirectory="$tmp" >"$tmp.log" 2>&1; then
    cat "$tmp.log" >&2
    rm -rf "$tmp"
    die "Maven could not resolve the jars of $pom (log above, kept in $tmp.log); check the network to Maven Central and ~/.m2/settings.xml."
  fi
  rm -f "$tmp.log"
  echo "$sum" >"$tmp/.pom.sha256"
  rm -rf "$dest"
  mv "$tmp" "$dest"
}

# Refuses to use folder $1 as an install folder when it exists, is not empty and was not made by
# these scripts (marker file $2): it could be a real Flink or Kafka installation.
claim_install_dir() {
  local dir="$1" marker="$2"
  if [[ -d "$dir" && ! -f "$dir/$marker" && -n "$(ls -A "$dir" 2>/dev/null)" ]]; then
    die "$dir exists and was not created by $(basename "$0") (no $marker in it). Point $3 at an empty or new folder."
  fi
  mkdir -p "$dir"
  touch "$dir/$marker"
}

# The value of flat key $1 in YAML file $2 ("key: value"; the last occurrence wins), or $3.
yaml_flat_value() {
  local value
  value="$(sed -n "s/^${1//./\\.}[[:space:]]*:[[:space:]]*\(.*\)$/\1/p" "$2" | tail -n 1 | sed 's/[[:space:]]#.*$//; s/[[:space:]]*$//')"
  echo "${value:-$3}"
}

# Waits until pid $1 (the $! of `( ... exec program ... ) &`) runs the program whose command
# line contains every further argument, for up to 60 s. Until the subshell's exec, that pid's
# command line is still the calling script's: a check made then (a loaded machine, a slow
# class path listing) would take a starting server for a dead one. Fails when the process
# ended (or is a zombie) first.
wait_for_exec() {
  local pid="$1" waited=0 state
  shift
  while ((waited < 1200)); do
    state="$(sed -n 's/^[0-9]* (.*) \([A-Z]\) .*/\1/p' "/proc/$pid/stat" 2>/dev/null || true)"
    [[ -n "$state" && "$state" != Z && "$state" != X ]] || return 1
    pid_matches "$pid" "$@" && return 0
    sleep 0.05
    waited=$((waited + 1))
  done
  return 1
}

# Exports AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for a Flink process: kept when both are set
# already, else s3.access-key and s3.secret-key of config file $1 (when it has both). Flink's S3
# file system (Hadoop S3A) takes them from the environment when its config names no keys, and
# the environment is neither logged by Flink nor visible to other users, unlike config values
# (Flink logs the access key) or command-line flags (ps shows them).
export_s3_credentials() {
  local access secret
  [[ -n "${AWS_ACCESS_KEY_ID:-}" && -n "${AWS_SECRET_ACCESS_KEY:-}" ]] && return 0
  access="$(yaml_flat_value s3.access-key "$1" '')"
  secret="$(yaml_flat_value s3.secret-key "$1" '')"
  if [[ -n "$access" && -n "$secret" ]]; then
    export AWS_ACCESS_KEY_ID="$access" AWS_SECRET_ACCESS_KEY="$secret"
  fi
}
