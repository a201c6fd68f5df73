#!/usr/bin/env bash
# Installs what `npm run test:e2e` needs from Debian: Chromium (driven through playwright-core at
# /usr/bin/chromium; no browser is ever downloaded) and curl (the docs' curl examples are run).
# Idempotent: installs only what is missing. Needs root (CI runs as root).
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium fonts-liberation)
command -v curl >/dev/null || missing+=(curl)

if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "chromium: $(/usr/bin/chromium --version)"
