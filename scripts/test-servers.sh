#!/usr/bin/env bash
# The system servers the tests drive for real: Chromium (the browser tests and the PDFs), PostgreSQL
# (the shared store's suites, each starting a throwaway cluster of its own) and ClickHouse (the second
# report engine's suites, each starting throwaway servers); and poppler's tools, which read the PDFs back. Installed from Debian when this machine can
# (root with apt-get); otherwise each missing one is named once here, with how to install it, and
# the suites that need it skip themselves.
set -uo pipefail

have_chromium() { [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; }
have_postgresql() { compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; }
have_clickhouse() { [ -x /usr/sbin/clickhouse-server ] || [ -x /usr/bin/clickhouse-server ]; }
have_poppler() { command -v pdftotext >/dev/null && command -v pdftoppm >/dev/null; }

missing() {
  local out=()
  have_chromium || out+=(chromium)
  have_postgresql || out+=(postgresql)
  have_clickhouse || out+=(clickhouse-server)
  have_poppler || out+=(poppler-utils)
  echo "${out[@]}"
}

need=$(missing)
if [ -n "$need" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "test: installing from Debian: $need"
  export DEBIAN_FRONTEND=noninteractive
  # shellcheck disable=SC2086
  if ! { apt-get update -qq && apt-get install -y -qq $need >/dev/null; }; then
    echo "test: apt-get could not install $need"
  fi
fi

declare -A suites=(
  [chromium]="the browser tests (e2e/)"
  [postgresql]="the PostgreSQL store, quota, jobs, cache, outbox and scheduler suites"
  [clickhouse-server]="the ClickHouse engine, publish and replica suites"
  [poppler-utils]="the PDF checks (e2e/pdf.spec.ts, lib/core/pdf/renderer.test.ts), which read PDFs back with pdftotext and pdftoppm"
)
for pkg in $(missing); do
  echo "test: SKIPPED ${suites[$pkg]}: no $pkg on this machine (as root: apt-get install $pkg)"
done
exit 0
