#!/usr/bin/env bash
# npm test: the system servers, then lint and types side by side (scripts/check-static.sh), then the
# unit and integration tests beside the browser tests (the build and Playwright). The two long steps
# spend most of their time waiting on servers, quota windows and the browser rather than computing,
# so on two cores they run side by side in about the time of the longer one; each line of their
# output is prefixed with its step, and each step's result is repeated at the end.
set -u
cd "$(dirname "$0")/.."
bash scripts/test-servers.sh || exit 1
echo "── servers ready after $SECONDS s"
bash scripts/check-static.sh || exit 1
echo "── lint and types done after $SECONDS s"

# Ctrl-C or a CI timeout stops both steps and everything they started.
trap 'trap - INT TERM; kill 0' INT TERM

step() {
  local name=$1
  shift
  local start=$SECONDS
  "$@" 2>&1 | sed -u "s/^/[$name] /"
  local rc=${PIPESTATUS[0]}
  echo "[$name] exit $rc after $((SECONDS - start)) s"
  return "$rc"
}

step unit npm run --silent test:unit &
unit=$!
# The build's own type check would repeat the one check-static.sh has just passed (tsc --noEmit over
# the same tsconfig and files): 42 of the build's 163 CPU-s on two cores.
DASHBOARD_BUILD_TYPECHECKED=1 step browser npm run --silent test:e2e &
browser=$!
wait "$unit"
unit_rc=$?
wait "$browser"
browser_rc=$?
echo "── all done after $SECONDS s"
echo "── npm run test:unit: exit $unit_rc"
echo "── npm run test:e2e: exit $browser_rc"
[ "$unit_rc" -eq 0 ] && [ "$browser_rc" -eq 0 ]
