#!/usr/bin/env bash
# The suite on a busy machine: a clean clone of a commit runs `.ci/run` (npm install && npm test)
# while one CPU-bound process per core (`sha256sum /dev/zero`, at the suite's priority) keeps every
# core busy, from before the clone until the run ends. Run it several times in a row to see that the
# result does not depend on the machine being quiet (docs/testing.md, "Under load").
# Usage: bash scripts/loaded-run.sh [COMMIT] [DIR]   (default: HEAD, /tmp/loaded-run)
# Each run's output goes to stdout; with ASSERTION_LOG set, the counts as npm test writes them.
set -u
repo=$(git rev-parse --show-toplevel)
commit=$(git -C "$repo" rev-parse "${1:-HEAD}") || exit 1
dir=${2:-/tmp/loaded-run}
load=()
for _ in $(seq "$(nproc)"); do
  sha256sum /dev/zero &
  load+=($!)
done
trap 'kill "${load[@]}" 2>/dev/null' EXIT
rm -rf "$dir" && git clone -q "$repo" "$dir" && cd "$dir" && git checkout -q "$commit" || exit 1
echo "loaded run of $commit beside ${#load[@]} CPU-bound processes, from $(date -u +%H:%M:%S) UTC"
start=$SECONDS
CI=true bash .ci/run
status=$?
echo "loaded run: .ci/run exited $status after $((SECONDS - start)) s"
exit "$status"
