#!/usr/bin/env bash
# npm run test:quick: the lint step and the type check side by side (each keeps about one core busy,
# so on two cores together they take little more than the longer one), each one's output shown whole
# when both have ended; then the unit tests that need no server (vitest.quick.config.ts).
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
if [ "$lint_rc" -ne 0 ] || [ "$types_rc" -ne 0 ]; then exit 1; fi
exec npx vitest run --config vitest.quick.config.ts
