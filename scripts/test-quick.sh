#!/usr/bin/env bash
# npm run test:quick: lint and types side by side (scripts/check-static.sh), then the unit tests that
# need no server (vitest.quick.config.ts).
set -u
cd "$(dirname "$0")/.."
bash scripts/check-static.sh || exit 1
exec npx vitest run --config vitest.quick.config.ts
