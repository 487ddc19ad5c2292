#!/usr/bin/env bash
# tools/beside.sh LOG "SIDE COMMAND" MAIN COMMAND...
# Runs SIDE COMMAND (one string, run by bash) in the background with its output in LOG,
# and MAIN COMMAND in the foreground; then waits for the side, prints its log, and fails
# when either failed (saying which). `make test` runs the rehearsal (which mostly waits on
# its container) beside pytest this way.
set -uo pipefail
if [ "$#" -lt 3 ]; then
  echo "usage: tools/beside.sh LOG 'SIDE COMMAND' MAIN COMMAND..." >&2
  exit 2
fi
log=$1
side=$2
shift 2
mkdir -p "$(dirname "$log")"
bash -c "$side" >"$log" 2>&1 &
side_pid=$!
trap 'kill "$side_pid" 2>/dev/null' INT TERM
"$@"
main_status=$?
wait "$side_pid"
side_status=$?
trap - INT TERM
echo "--- beside the tests: $side (its output, from $log) ---"
cat "$log"
if [ "$main_status" != 0 ]; then
  echo "FAILED: $* (exit $main_status)"
fi
if [ "$side_status" != 0 ]; then
  echo "FAILED: $side (exit $side_status)"
fi
[ "$main_status" = 0 ] && [ "$side_status" = 0 ]
