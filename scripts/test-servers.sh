#!/usr/bin/env bash
# The system servers the tests drive for real: Chromium (the browser tests and the PDFs; Debian's
# headless shell, which draws the same pages for less CPU than the full browser, lib/core/pdf/chromium.ts),
# PostgreSQL (the shared store's suites, each starting a throwaway cluster of its own) and ClickHouse
# (the second report engine's suites, each starting throwaway servers); and the programs that read
# the downloads back: poppler's tools the PDFs, LibreOffice the workbooks. Installed from Debian when this machine can
# (root with apt-get); otherwise each missing one is named once here, with how to install it, and
# the suites that need it skip themselves.
set -uo pipefail

# CHROMIUM_PATH when set, else the headless shell (lib/core/pdf/chromium.ts), installed even where the
# full browser is: the tests fall back to that one, for more CPU.
have_chromium() { [ -x "${CHROMIUM_PATH:-/usr/lib/chromium/chromium-headless-shell}" ]; }
have_postgresql() { compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; }
have_clickhouse() { [ -x /usr/sbin/clickhouse-server ] || [ -x /usr/bin/clickhouse-server ]; }
have_poppler() { command -v pdftotext >/dev/null && command -v pdftoppm >/dev/null; }
have_libreoffice() { command -v soffice >/dev/null; }

missing() {
  local out=()
  have_chromium || out+=(chromium-headless-shell)
  have_postgresql || out+=(postgresql)
  have_clickhouse || out+=(clickhouse-server)
  have_poppler || out+=(poppler-utils)
  have_libreoffice || out+=(libreoffice-calc-nogui)
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
  [chromium-headless-shell]="the browser tests (e2e/) and the PDF renderer's (lib/core/pdf/renderer.test.ts)"
  [postgresql]="the PostgreSQL store, quota, jobs, cache, outbox and scheduler suites"
  [clickhouse-server]="the ClickHouse engine, publish and replica suites"
  [libreoffice-calc-nogui]="the check that LibreOffice opens a workbook to the CSV's values (lib/report/table/xlsx.test.ts)"
  [poppler-utils]="the PDF checks (e2e/pdf.spec.ts, lib/core/pdf/renderer.test.ts), which read PDFs back with pdftotext and pdftoppm"
)
for pkg in $(missing); do
  if [ "$pkg" = chromium-headless-shell ] && [ -z "${CHROMIUM_PATH:-}" ] && [ -x /usr/bin/chromium ]; then
    echo "test: no chromium-headless-shell: the browser tests run in the full browser (/usr/bin/chromium), which takes more CPU (as root: apt-get install chromium-headless-shell)"
    continue
  fi
  echo "test: SKIPPED ${suites[$pkg]}: no $pkg on this machine (as root: apt-get install $pkg)"
done
exit 0
