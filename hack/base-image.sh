#!/usr/bin/env bash
# Build the Debian bookworm images with systemd that the molecule scenarios run
# on, from the Debian archive this machine's apt already uses (no registry
# needed). Built once per machine; later calls return at once.
#   hack/base-image.sh            sched-bench/debian-systemd:bookworm (with python3)
#   hack/base-image.sh nopython   sched-bench/debian-systemd-nopython:bookworm: no Python at
#                                 all (a host the toolkit must bootstrap one on), curl and wget
set -euo pipefail

VARIANT="${1:-python}"
case "$VARIANT" in
  python)
    IMAGE="${SCHED_BENCH_BASE_IMAGE:-sched-bench/debian-systemd:bookworm}"
    PACKAGES=python3,python3-apt ;;
  nopython)
    IMAGE="${SCHED_BENCH_NOPYTHON_IMAGE:-sched-bench/debian-systemd-nopython:bookworm}"
    PACKAGES=curl,wget ;;
  *)
    echo "base-image: unknown variant $VARIANT (python or nopython)" >&2
    exit 2 ;;
esac
if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  exit 0
fi

mirror() {
  # The first Debian archive URI apt is configured with (deb822 or one-line format).
  local uri
  uri=$(grep -rhsE '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null \
        | grep -v -- '-security' | grep -i debian \
        | sed -E 's/^URIs:[[:space:]]*//; s/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?//' \
        | awk '{print $1}' | head -n1)
  if [ -z "$uri" ]; then
    echo "base-image: no Debian archive found in apt's sources" >&2
    exit 1
  fi
  echo "$uri"
}

command -v debootstrap >/dev/null 2>&1 || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}
ROOTFS=$(mktemp -d /var/tmp/sched-bench-rootfs.XXXXXX)
trap 'rm -rf "$ROOTFS"' EXIT
echo "base-image: debootstrap bookworm from $(mirror) into $ROOTFS"
debootstrap --variant=minbase \
  --include="$PACKAGES,systemd,systemd-sysv,sudo,ca-certificates,iproute2,procps" \
  bookworm "$ROOTFS" "$(mirror)" >/dev/null
if [ "$VARIANT" = nopython ] && compgen -G "$ROOTFS/usr/bin/python*" >/dev/null; then
  echo "base-image: $IMAGE must have no Python, but debootstrap installed $(cd "$ROOTFS" && ls usr/bin/python*)" >&2
  exit 1
fi
# A container has no getty or udev to wait for.
rm -f "$ROOTFS"/etc/systemd/system/getty.target.wants/* "$ROOTFS"/lib/systemd/system/multi-user.target.wants/getty.target
tar -C "$ROOTFS" -c . | docker import --change 'CMD ["/lib/systemd/systemd"]' - "$IMAGE" >/dev/null
echo "base-image: built $IMAGE"
