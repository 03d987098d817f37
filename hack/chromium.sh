#!/usr/bin/env bash
# Make sure headless Chromium is installed: Debian's chromium and the fonts the tests measure pages with.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 && [ -d /usr/share/fonts/truetype/dejavu ]; then
  exit 0
fi
echo "chromium: installing chromium and fonts-dejavu-core from the distribution's archive"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
