#!/usr/bin/env bash
# Build a kind base image from Debian's archive (the mirror apt is configured with): systemd,
# containerd, runc, the CNI plugins, iptables and the mount tools, with our entrypoint, units and
# containerd configuration (files under base/). Called by tests/infra/kind-images.sh.
#   base.sh <image name> <sandbox (pause) image>
# Two stages: <image>-rootfs (debootstrap, built once) and <image> (our files on it: seconds, and
# nothing when they have not changed).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
IMAGE="$1"
SANDBOX="$2"
ROOTFS_IMAGE="${IMAGE%%:*}-rootfs:bookworm"
PACKAGES=systemd,systemd-sysv,containerd,runc,containernetworking-plugins,conntrack,iptables,nftables
PACKAGES=$PACKAGES,iproute2,ethtool,util-linux,mount,kmod,libseccomp2,pigz,bash,ca-certificates,curl,jq,procps,socat

mirror() {
  # The first Debian archive URI apt is configured with (deb822 or one-line format).
  grep -rhsE '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/ \
    | grep -v -- '-security' | grep -i debian \
    | sed -E 's/^URIs:[[:space:]]*//; s/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?//' \
    | awk '{print $1}' | head -n1 || true
}

CONTEXT=$(mktemp -d /var/tmp/sched-bench-kind-base.XXXXXX)
trap 'rm -rf "$CONTEXT"' EXIT

if ! docker image inspect "$ROOTFS_IMAGE" >/dev/null 2>&1; then
  MIRROR=$(mirror)
  if [ -z "$MIRROR" ]; then
    echo "kind-images: no Debian archive found in apt's sources" >&2
    exit 1
  fi
  command -v debootstrap >/dev/null 2>&1 || {
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  }
  # Downloaded packages are kept beside the other kind images, for the next build.
  DEBS="${KIND_IMAGES_CACHE:-$HOME/.cache/kube-sched-bench}/kind-images/debs"
  mkdir -p "$DEBS"
  echo "kind-images: debootstrap bookworm from $MIRROR for $ROOTFS_IMAGE"
  debootstrap --variant=minbase --cache-dir="$DEBS" --include="$PACKAGES" bookworm "$CONTEXT/rootfs" "$MIRROR" >/dev/null
  rm -rf "$CONTEXT"/rootfs/var/cache/apt/archives/*.deb "$CONTEXT"/rootfs/var/lib/apt/lists/*
  tar -C "$CONTEXT/rootfs" -c . | docker import - "$ROOTFS_IMAGE" >/dev/null
  rm -rf "$CONTEXT/rootfs"
fi

cp -a "$HERE/base" "$CONTEXT/files"
sed -i "s|@SANDBOX_IMAGE@|$SANDBOX|" "$CONTEXT/files/etc/containerd/config.toml"
cat >"$CONTEXT/Dockerfile" <<DOCKERFILE
FROM $ROOTFS_IMAGE
COPY files/ /
# kind and the kubelet look for the CNI plugins in /opt/cni/bin; Debian installs them in /usr/lib/cni.
# Only what a node needs at boot: no gettys, udev, timers or the units Debian enables by default.
RUN chmod 0755 /usr/local/bin/entrypoint /usr/local/bin/ctr /kind/bin/* \\
 && mkdir -p /opt/cni /etc/cni/net.d /etc/kubernetes/manifests && ln -sfn /usr/lib/cni /opt/cni/bin \\
 && rm -f /etc/systemd/system/*.wants/* /lib/systemd/system/multi-user.target.wants/* \\
      /lib/systemd/system/local-fs.target.wants/* /lib/systemd/system/basic.target.wants/* \\
      /lib/systemd/system/sockets.target.wants/*udev* /lib/systemd/system/sockets.target.wants/*initctl* \\
      /lib/systemd/system/sysinit.target.wants/systemd-tmpfiles-setup.service \\
 && echo "ReadKMsg=no" >>/etc/systemd/journald.conf \\
 && systemctl enable containerd.service kubelet.service undo-mount-hacks.service \\
 && systemctl mask systemd-binfmt.service
ENV container=docker
# systemd stops on SIGRTMIN+3 (SIGTERM makes it re-execute).
STOPSIGNAL SIGRTMIN+3
ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]
DOCKERFILE
if ! out=$(DOCKER_BUILDKIT=0 docker build -q -t "$IMAGE" "$CONTEXT" 2>&1); then
  echo "$out" >&2
  exit 1
fi
echo "kind-images: built $IMAGE on $ROOTFS_IMAGE ($(docker run --rm --entrypoint dpkg-query "$IMAGE" \
  -W -f '${Package} ${Version}; ' containerd runc containernetworking-plugins systemd))"
