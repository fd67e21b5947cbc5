# shellcheck shell=bash
# Helpers shared by scripts/bench-all, scripts/bench-spark and scripts/bench-incremental. Sourced
# after common.sh (die), never run. BENCH (the script's name, e.g. bench-all) must be set first;
# BENCH_FOLDER_ARG names how the folder is given, for messages (default --base DIR).

# bench_positive OPTION VALUE: a positive whole number, or a refusal naming the option.
bench_positive() {
  [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$BENCH: $1 takes a positive whole number, not '$2'" 2
}

# bench_require_time: GNU time, for CPU time and peak RSS.
bench_require_time() {
  [[ -x /usr/bin/time ]] || die "$BENCH needs GNU time at /usr/bin/time for CPU time and peak RSS: apt-get install -y time"
}

# bench_work_folder DIR NAMES: the script's own work folder. DIR must be new, empty, or one this
# script marked (.flinkss-$BENCH) holding nothing but NAMES (an extended regex of the names it
# writes there) and its own .last-output and .last-time; anything else is refused, naming it, and
# left alone. Sets BENCH_BASE to the folder's absolute path and BENCH_OUTPUT to the file where
# bench_timed keeps the last command's output.
bench_work_folder() {
  local dir=$1 names=$2 mark=".flinkss-$BENCH" foreign arg=${BENCH_FOLDER_ARG:---base DIR}
  if [[ -e "$dir" && ! -d "$dir" ]]; then
    die "$BENCH's folder $dir is a file: give a new folder ($arg)" 2
  fi
  if [[ -d "$dir" && -n "$(ls -A "$dir")" ]]; then
    [[ -f "$dir/$mark" ]] || die "$BENCH's folder $dir is not empty and $BENCH did not make it (it holds $(ls -A "$dir" | head -5 | tr '\n' ' ')): give a new or empty folder ($arg)" 2
    foreign=$(ls -A "$dir" | grep -vxE "\\$mark|\\.last-output|\\.last-time|$names" || true)
    [[ -z "$foreign" ]] || die "$BENCH's folder $dir holds $(paste -sd " " <<<"$foreign"), which $BENCH did not write: move it away or give another folder" 2
  fi
  mkdir -p "$dir"
  echo "A folder made by flinkss scripts/$BENCH: it deletes and rewrites what it made here, and nothing else." >"$dir/$mark"
  BENCH_BASE="$(cd "$dir" && pwd)"
  BENCH_OUTPUT="$BENCH_BASE/.last-output"
}

# bench_timed COMMAND...: runs it under GNU time with its output in $BENCH_OUTPUT (printed if it
# fails, and the script stops); sets wall and rss_kb, and cpu (user + system).
bench_timed() {
  local stats="$BENCH_BASE/.last-time" user sys
  if ! /usr/bin/time -f '%e %U %S %M' -o "$stats" "$@" >"$BENCH_OUTPUT" 2>&1; then
    cat "$BENCH_OUTPUT" >&2
    die "$BENCH: '$*' failed (its output is above)"
  fi
  read -r wall user sys rss_kb <"$stats"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}

# bench_clean: removes bench_timed's files from the work folder (at the end of a run).
bench_clean() {
  rm -f "$BENCH_OUTPUT" "$BENCH_BASE/.last-time"
}
