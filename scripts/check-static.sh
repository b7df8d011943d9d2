#!/usr/bin/env bash
# The lint step and the type check side by side: each keeps about one core busy, so on two cores
# together they take little more than the longer one. Each one's output is shown whole when both
# have ended, so the two never interleave, with its exit code and seconds.
set -u
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$(date +%s)
run() {
  local name=$1
  shift
  "$@" >"$out/$name" 2>&1
  echo "$? $(($(date +%s) - start))" >"$out/$name.end"
}
run lint npm run --silent lint &
run types npm run --silent typecheck &
wait
read -r lint_rc lint_s <"$out/lint.end"
read -r types_rc types_s <"$out/types.end"
echo "── npm run lint (exit $lint_rc, $lint_s s)"
cat "$out/lint"
echo "── npm run typecheck (exit $types_rc, $types_s s)"
cat "$out/types"
[ "$lint_rc" -eq 0 ] && [ "$types_rc" -eq 0 ]
