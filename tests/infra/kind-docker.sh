#!/usr/bin/env bash
# Make the Docker engine on this test machine run privileged containers (kind's
# nodes are always privileged): install ../shared/tools/runc-capfilter as
# dockerd's default runtime and reload dockerd (SIGHUP, never a restart: CI
# runs and molecule scenarios may be using the engine). Test machines only:
# lab servers have the full capability bounding set and need nothing of it.
#   tests/infra/kind-docker.sh     idempotent; a second call changes nothing
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SOURCE="${KIND_DOCKER_CAPFILTER:-$ROOT/../shared/tools/runc-capfilter}"
WRAPPER=/usr/local/bin/runc-capfilter
DAEMON_JSON=/etc/docker/daemon.json
RUNTIME=capfilter

if [ ! -f "$SOURCE" ]; then
  echo "kind-docker: KIND_DOCKER_CAPFILTER=$SOURCE does not exist (the path of runc-capfilter)" >&2
  exit 2
fi
"$ROOT/hack/docker-up.sh"

if ! cmp -s "$SOURCE" "$WRAPPER"; then
  install -m 0755 "$SOURCE" "$WRAPPER"
  echo "kind-docker: installed $WRAPPER"
fi

# Merge our runtime into daemon.json, keeping every other setting.
mkdir -p "$(dirname "$DAEMON_JSON")"
CHANGED=$(python3 - "$DAEMON_JSON" "$RUNTIME" "$WRAPPER" <<'PY'
import json, os, sys
path, name, wrapper = sys.argv[1:]
doc = json.load(open(path)) if os.path.exists(path) and os.path.getsize(path) else {}
before = json.dumps(doc, sort_keys=True)
doc.setdefault("runtimes", {})[name] = {"path": wrapper}
doc["default-runtime"] = name
if json.dumps(doc, sort_keys=True) != before:
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)
    print("yes")
PY
)

default_runtime() { docker info --format '{{.DefaultRuntime}}' 2>/dev/null; }
if [ -n "$CHANGED" ] || [ "$(default_runtime)" != "$RUNTIME" ]; then
  pid=$(pgrep -x -o dockerd)
  echo "kind-docker: reloading dockerd ($pid) with $DAEMON_JSON"
  kill -HUP "$pid"
  for _ in $(seq 1 30); do
    [ "$(default_runtime)" = "$RUNTIME" ] && break
    sleep 1
  done
fi
if [ "$(default_runtime)" != "$RUNTIME" ]; then
  echo "kind-docker: dockerd's default runtime is '$(default_runtime)', not $RUNTIME, after a reload; see /var/log/dockerd.log" >&2
  exit 1
fi
echo "kind-docker: dockerd's default runtime is $RUNTIME ($WRAPPER)"
