#!/usr/bin/env bash
# Build the Debian images with systemd that the molecule scenarios run on, from the
# Debian archive this machine's apt already uses (no registry needed). Built once per
# machine; later calls return at once.
#   hack/base-image.sh              sched-bench/debian-systemd:bookworm (with python3)
#   hack/base-image.sh nopython     sched-bench/debian-systemd-nopython:bookworm: no Python at
#                                   all (a host the toolkit must bootstrap one on), curl and wget
# The SSH lab (molecule/lab) reaches its hosts with ssh: the same images with openssh-server,
# its host keys left out (each container makes its own) and its service not enabled (the
# scenario's prepare starts it once the user's key is in place):
#   hack/base-image.sh ssh          sched-bench/debian-systemd-ssh:bookworm: python3 3.11 and its
#                                   venv module (a host where nothing needs root)
#   hack/base-image.sh ssh-trixie   sched-bench/debian-systemd-ssh:trixie: python3 3.13 without
#                                   its venv module (the toolkit installs it with sudo)
#   hack/base-image.sh ssh-nopython sched-bench/debian-systemd-nopython-ssh:bookworm: no Python
set -euo pipefail

VARIANT="${1:-python}"
RELEASE=bookworm
SSH=
case "$VARIANT" in
  python)
    IMAGE="${SCHED_BENCH_BASE_IMAGE:-sched-bench/debian-systemd:bookworm}"
    PACKAGES=python3,python3-apt ;;
  nopython)
    IMAGE="${SCHED_BENCH_NOPYTHON_IMAGE:-sched-bench/debian-systemd-nopython:bookworm}"
    PACKAGES=curl,wget ;;
  ssh)
    IMAGE="${SCHED_BENCH_SSH_IMAGE:-sched-bench/debian-systemd-ssh:bookworm}"
    PACKAGES=python3,python3-apt,python3-venv SSH=1 ;;
  ssh-trixie)
    IMAGE="${SCHED_BENCH_SSH_TRIXIE_IMAGE:-sched-bench/debian-systemd-ssh:trixie}"
    RELEASE=trixie PACKAGES=python3,python3-apt SSH=1 ;;
  ssh-nopython)
    IMAGE="${SCHED_BENCH_SSH_NOPYTHON_IMAGE:-sched-bench/debian-systemd-nopython-ssh:bookworm}"
    PACKAGES=curl,wget SSH=1 ;;
  *)
    echo "base-image: unknown variant $VARIANT (python, nopython, ssh, ssh-trixie or ssh-nopython)" >&2
    exit 2 ;;
esac
if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  exit 0
fi
if [ -n "$SSH" ]; then
  PACKAGES="$PACKAGES,openssh-server"
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
if [ ! -e "/usr/share/debootstrap/scripts/$RELEASE" ]; then
  echo "base-image: this debootstrap has no script for $RELEASE (/usr/share/debootstrap/scripts)" >&2
  exit 1
fi
ROOTFS=$(mktemp -d /var/tmp/sched-bench-rootfs.XXXXXX)
trap 'rm -rf "$ROOTFS"' EXIT
echo "base-image: debootstrap $RELEASE from $(mirror) into $ROOTFS"
debootstrap --variant=minbase \
  --include="$PACKAGES,systemd,systemd-sysv,sudo,ca-certificates,iproute2,procps" \
  "$RELEASE" "$ROOTFS" "$(mirror)" >/dev/null
case "$VARIANT" in
  *nopython)
    if compgen -G "$ROOTFS/usr/bin/python*" >/dev/null; then
      echo "base-image: $IMAGE must have no Python, but debootstrap installed $(cd "$ROOTFS" && ls usr/bin/python*)" >&2
      exit 1
    fi ;;
esac
# A container has no getty or udev to wait for.
rm -f "$ROOTFS"/etc/systemd/system/getty.target.wants/* "$ROOTFS"/lib/systemd/system/multi-user.target.wants/getty.target
if [ -n "$SSH" ]; then
  # Every container makes its own host keys (ssh-keygen -A) and starts sshd when its user can log in.
  rm -f "$ROOTFS"/etc/ssh/ssh_host_* "$ROOTFS"/etc/systemd/system/multi-user.target.wants/ssh.service \
    "$ROOTFS"/etc/systemd/system/sockets.target.wants/ssh.socket "$ROOTFS"/etc/systemd/system/sshd.service
fi
tar -C "$ROOTFS" -c . | docker import --change 'CMD ["/lib/systemd/systemd"]' - "$IMAGE" >/dev/null
echo "base-image: built $IMAGE"
