#!/usr/bin/env bash
# The README's test command on a machine that has only Node: a Debian minbase chroot (debootstrap)
# holding this machine's Node and npm, git and the CA bundle, nothing else (no Chromium, PostgreSQL
# or ClickHouse), where a fresh clone runs `npm install && npm test` as root and is timed.
# Usage (root, Debian): bash scripts/fresh-machine.sh [ROOT_DIR]   (default /srv/fresh-machine)
# Another run's e2e servers must not be running on this machine: the chroot shares its ports.
set -euo pipefail
root=${1:-/srv/fresh-machine}
repo=$(git rev-parse --show-toplevel)
command -v debootstrap >/dev/null || apt-get install -y debootstrap
[ -d "$root/usr" ] || debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian
# Node and npm as this machine has them.
node_pkg=$(dpkg -S "$(command -v node)" | cut -d: -f1)
dpkg -L "$node_pkg" | while read -r f; do
  if [ -L "$f" ] || [ -f "$f" ]; then mkdir -p "$root$(dirname "$f")"; cp -P "$f" "$root$f"; fi
done
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
rm -rf "$root$npm_dir" && mkdir -p "$(dirname "$root$npm_dir")" && cp -a "$npm_dir" "$root$npm_dir"
cp /etc/resolv.conf "$root/etc/"
for m in proc sys dev dev/pts dev/shm; do mountpoint -q "$root/$m" || mount --bind "/$m" "$root/$m"; done
chroot "$root" sh -c 'apt-get update -q >/dev/null && apt-get install -y -q git ca-certificates >/dev/null'
# This machine's CA bundle and npm settings (a proxy's certificate may be in them).
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
[ -f /etc/npmrc ] && cp /etc/npmrc "$root/etc/npmrc"
rm -rf "$root/root/app" && git clone -q "$repo" "$root/root/app"
start=$(date +%s)
status=0
chroot "$root" sh -c 'cd /root/app && CI=true npm install && CI=true npm test' || status=$?
echo "fresh machine: npm install && npm test exited $status after $(( $(date +%s) - start )) s; git status after: $(chroot "$root" sh -c 'cd /root/app && git status --porcelain | wc -l') changed files"
exit "$status"
