#!/usr/bin/env bash
# Make sure a Docker engine runs on this machine: install Debian's docker.io if
# dockerd is missing, start it if it is not running, wait until it answers.
set -euo pipefail

if docker info >/dev/null 2>&1; then
  exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  echo "docker-up: installing docker.io from the distribution's archive"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
if ! pgrep -x dockerd >/dev/null; then
  echo "docker-up: starting dockerd (log: /var/log/dockerd.log)"
  (setsid dockerd >/var/log/dockerd.log 2>&1 &)
fi
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    exit 0
  fi
  sleep 1
done
echo "docker-up: dockerd did not answer within 60 s; see /var/log/dockerd.log" >&2
exit 1
