#!/bin/bash
# `npm start` on fresh clones, before and after a change, alternated: the time from the command to
# its printed sign-in lines. Usage: bash bench/start.sh BEFORE_REV [AFTER_REV] (after: HEAD).
# node_modules is hard-linked from this checkout (the same lock file installs the same packages);
# the service and dashboard use ports 4300 and 3300. Results go to docs/benchmarks.md by hand.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
BEFORE=${1:?before revision}
AFTER=${2:-$(git -C "$REPO" rev-parse HEAD)}
for i in 1 2 3; do
  for v in before after; do
    rev=$BEFORE; [ $v = after ] && rev=$AFTER
    d=$(mktemp -d /tmp/bench-start-$v-XXXX)
    git clone -q "$REPO" "$d" && git -C "$d" checkout -q "$rev"
    cp -al "$REPO/node_modules" "$d/node_modules"
    cd "$d" || exit 1
    start=$(date +%s.%N)
    (SERVICE_PORT=4300 PORT=3300 npm start > "$d/start.log" 2>&1 &)
    until grep -q "Dashboard  http://localhost" "$d/start.log" 2>/dev/null; do
      sleep 0.5
      [ "$(echo "$(date +%s.%N) - $start > 400" | bc)" = 1 ] && break
    done
    end=$(date +%s.%N)
    echo "$v run $i: $(echo "$end - $start" | bc) s; $(grep -o "attempts in [0-9.]* s" "$d/start.log" | head -1); $(grep -o "Compiled successfully in [0-9.]*[a-z]*" "$d/start.log" | head -1); load $(cut -d' ' -f1 /proc/loadavg)"
    pkill -f "$d/"; pkill -f "next start --port 3300"; sleep 3; pkill -9 -f "$d/" 2>/dev/null; sleep 1
    cd / && rm -rf "$d"
  done
done
