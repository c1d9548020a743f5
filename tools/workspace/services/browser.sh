#!/usr/bin/env bash
# Chromium (Debian's package, from browser.packages) for the browser tests of the pages
# (apps/api-e2e/src/pages.e2e-spec.ts; playwright-core drives it headless). Nothing to start: this only checks
# that the browser runs.
set -euo pipefail
if ! version=$(/usr/bin/chromium --version 2>/dev/null); then
  echo "browser: /usr/bin/chromium --version failed; install the chromium package" >&2
  exit 1
fi
echo "browser: $version"
