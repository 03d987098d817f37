#!/usr/bin/env bash
# Make sure Debian's prometheus package is installed (the tests check metrics.prom with promtool and load it into a
# Prometheus of their own), and that the package's own daemon is not left running: the tests start the binary
# themselves, on a free port.
set -euo pipefail

if command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
echo "prometheus: installing prometheus from the distribution's archive"
apt-get update -qq
# policy-rc.d's 101 keeps the package's service from being started by the installation.
policy=/usr/sbin/policy-rc.d
created=no
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && created=yes
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null || status=$?
if [ "$created" = yes ]; then rm -f "$policy"; fi
if [ "${status:-0}" -ne 0 ]; then exit "$status"; fi
# On a machine whose systemd runs, the unit is enabled by the package: stop and disable it.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  systemctl disable --now prometheus.service prometheus-node-exporter.service >/dev/null 2>&1 || true
fi
