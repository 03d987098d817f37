#!/usr/bin/env bash
# Build a registry image from Debian's docker-registry package, for machines
# that cannot pull registry:2 (tests, air-gapped hosts). Runs on Debian/Ubuntu
# as root with Docker; the image holds the binary, the libraries it links and a
# config serving /var/lib/registry on :5000, like the upstream image.
#   hack/registry-image.sh [image name]   (default sched-bench/registry:debian)
set -euo pipefail

IMAGE="${1:-sched-bench/registry:debian}"
if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  exit 0
fi
if [ ! -x /usr/bin/docker-registry ]; then
  apt-get update -qq
  # The package's own service is not wanted: only its binary.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-registry >/dev/null
  systemctl disable --now docker-registry >/dev/null 2>&1 || true
fi
ROOTFS=$(mktemp -d /var/tmp/sched-bench-registry.XXXXXX)
trap 'rm -rf "$ROOTFS"' EXIT
mkdir -p "$ROOTFS/usr/bin" "$ROOTFS/etc/docker/registry" "$ROOTFS/var/lib/registry" "$ROOTFS/tmp"
chmod 1777 "$ROOTFS/tmp" "$ROOTFS/var/lib/registry"
cp /usr/bin/docker-registry "$ROOTFS/usr/bin/registry"
for lib in $(ldd /usr/bin/docker-registry | grep -oE '/[^ ]+'); do
  mkdir -p "$ROOTFS$(dirname "$lib")"
  cp -L "$lib" "$ROOTFS$lib"
done
cat >"$ROOTFS/etc/docker/registry/config.yml" <<'CONFIG'
version: 0.1
log:
  fields:
    service: registry
storage:
  cache:
    blobdescriptor: inmemory
  filesystem:
    rootdirectory: /var/lib/registry
  delete:
    enabled: true
http:
  addr: :5000
CONFIG
tar -C "$ROOTFS" -c . | docker import \
  --change 'ENTRYPOINT ["/usr/bin/registry", "serve"]' \
  --change 'CMD ["/etc/docker/registry/config.yml"]' \
  --change 'EXPOSE 5000' --change 'VOLUME ["/var/lib/registry"]' - "$IMAGE" >/dev/null
echo "registry-image: built $IMAGE from $(dpkg-query -W -f '${Package} ${Version}' docker-registry)"
