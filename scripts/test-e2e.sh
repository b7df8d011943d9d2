#!/usr/bin/env bash
# The browser tests: a production build, then Playwright against it and the real service. Without
# Chromium (which scripts/test-servers.sh installs where it can) they are skipped, said in one line.
# The build's first-load budget (scripts/check-first-load.ts) is checked right after the build.
set -euo pipefail
chromium=$(tsx -e 'import("./lib/core/pdf/chromium.ts").then((m) => console.log(m.chromiumPath()))')
if [ ! -x "$chromium" ]; then
  echo "test: SKIPPED the browser tests (e2e/): no Chromium at $chromium (as root: apt-get install chromium-headless-shell)"
  exit 0
fi
next build
tsx scripts/check-first-load.ts
playwright test
