#!/usr/bin/env bash
# Installs Debian's Chromium for the browser end-to-end test (`npm run test:e2e`), which drives it
# through playwright-core at /usr/bin/chromium and never downloads a browser of its own.
# Idempotent: does nothing when /usr/bin/chromium is already there. Needs root (CI runs as root).
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-liberation
echo "chromium: $(/usr/bin/chromium --version)"
