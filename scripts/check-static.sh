#!/usr/bin/env bash
# The lint step and the type check side by side: each keeps about one core busy, so on two cores
# together they take little more than the longer one. Each one's output is shown whole when both
# have ended, so the two never interleave.
set -u
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
npm run --silent lint >"$out/lint" 2>&1 &
lint=$!
npm run --silent typecheck >"$out/types" 2>&1 &
types=$!
wait "$lint"
lint_rc=$?
wait "$types"
types_rc=$?
echo "── npm run lint (exit $lint_rc)"
cat "$out/lint"
echo "── npm run typecheck (exit $types_rc)"
cat "$out/types"
[ "$lint_rc" -eq 0 ] && [ "$types_rc" -eq 0 ]
