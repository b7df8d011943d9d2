#!/usr/bin/env bash
# The browser tests: a production build and its first-load budget (scripts/check-first-load.ts),
# then Playwright against it and the real service. Without Chromium (which scripts/test-servers.sh
# installs where it can) the Playwright part is skipped, said in one line; the budget is still checked.
set -euo pipefail
next build
tsx scripts/check-first-load.ts
chromium=$(tsx -e 'import("./lib/core/pdf/chromium.ts").then((m) => console.log(m.chromiumPath()))')
if [ ! -x "$chromium" ]; then
  echo "test: SKIPPED the browser tests (e2e/): no Chromium at $chromium (as root: apt-get install chromium-headless-shell)"
  exit 0
fi
playwright test
