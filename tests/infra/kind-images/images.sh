#!/usr/bin/env bash
# Build the images a kind node holds, from the binaries tests/infra/kind-images.sh built, with the names
# and tags kubeadm and kind ask for, and the server tarball `kind build node-image --type file` reads.
#   images.sh <kubernetes version> <bin dir> <base image> <kind module dir> <server dir>
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
VERSION="$1" BIN="$2" BASE_IMAGE="$3" KIND_MODULE="$4" SERVER="$5"
PYTHON="${KIND_IMAGES_PYTHON:-$HERE/../../../.venv/bin/python}"
WORK=$(mktemp -d /var/tmp/sched-bench-kind-images.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

kubeadm_image() { "$BIN/kubeadm" config images list --kubernetes-version "$VERSION" | grep "/$1:"; }
# The image kind's node image build pulls, from its source at the pinned version: <file> <Go constant>.
kind_image() { sed -n "s/^const $2 = \"\(.*\)\"/\1/p" "$KIND_MODULE/pkg/build/nodeimage/$1"; }

# shellcheck source=tests/infra/kind-images/scratch.sh
source "$HERE/scratch.sh"

busybox() {
  # Debian's statically linked busybox, for the two images that need a shell.
  if [ ! -x "$WORK/busybox/bin/busybox" ]; then
    (cd "$WORK" && apt-get download -qq busybox-static >/dev/null 2>&1 \
      || { apt-get update -qq && apt-get download -qq busybox-static >/dev/null; })
    dpkg-deb -x "$WORK"/busybox-static_*.deb "$WORK/busybox"
  fi
  echo "$WORK/busybox/bin/busybox"
}

for component in kube-apiserver kube-controller-manager kube-scheduler; do
  scratch_image "$(kubeadm_image "$component")" "/usr/local/bin/$component" "$BIN/$component:/usr/local/bin/$component"
done
ETCD_IMAGE=$(kubeadm_image etcd)
ETCD_BUILT=$("$BIN/etcd" --version | sed -n 's/^etcd Version: //p')
if [[ "${ETCD_IMAGE##*:}" != "$ETCD_BUILT"-* ]]; then
  echo "kind-images: kubeadm $VERSION asks for $ETCD_IMAGE but etcd $ETCD_BUILT was built: pin the matching etcd in the version set" >&2
  exit 1
fi
scratch_image "$ETCD_IMAGE" /usr/local/bin/etcd "$BIN/etcd:/usr/local/bin/etcd"
scratch_image "$(kubeadm_image coredns)" /coredns "$BIN/coredns:/coredns"
scratch_image "$(kubeadm_image pause)" /pause "$BIN/pause:/pause"
BB=$(busybox)
ln -sf busybox "$WORK/sh"
scratch_image "$(kind_image const_storage.go storageHelperImage)" /bin/sh \
  "$BB:/bin/busybox" "$WORK/sh:/bin/sh" "$WORK/sh:/bin/mkdir" "$WORK/sh:/bin/rm"
scratch_image "$(kind_image const_storage.go storageProvisionerImage)" /usr/local/bin/local-path-provisioner \
  "$BIN/local-path-provisioner:/usr/local/bin/local-path-provisioner"
scratch_image "$(kind_image const_cni.go kindnetdImage)" /usr/local/bin/kindnetd \
  "$BB:/bin/busybox" "$WORK/sh:/bin/sh" "$WORK/sh:/bin/ip" "$WORK/sh:/bin/cat" "$WORK/sh:/bin/cp" \
  "$WORK/sh:/bin/mv" "$WORK/sh:/bin/cmp" "$WORK/sh:/bin/sleep" \
  "$BIN/kubectl:/usr/local/bin/kubectl" "$HERE/cni/kindnetd:/usr/local/bin/kindnetd"

# kube-proxy programs iptables: it runs on the base image, which has them.
mkdir -p "$WORK/proxy" && cp "$BIN/kube-proxy" "$WORK/proxy/"
printf 'FROM %s\nCOPY kube-proxy /usr/local/bin/kube-proxy\nENTRYPOINT ["/usr/local/bin/kube-proxy"]\n' "$BASE_IMAGE" \
  >"$WORK/proxy/Dockerfile"
if ! out=$(DOCKER_BUILDKIT=0 docker build -q -t "$(kubeadm_image kube-proxy)" "$WORK/proxy" 2>&1); then
  echo "$out" >&2
  exit 1
fi
echo "kind-images: built $(kubeadm_image kube-proxy)"

# The server tarball: kind reads kubeadm, kubelet, kubectl and four image archives. kind pulls every
# other image it needs unless an archive names it, so kube-proxy's archive carries them all.
rm -rf "$SERVER" && mkdir -p "$SERVER/kubernetes/server/bin"
echo "$VERSION" >"$SERVER/kubernetes/version"
cp "$BIN/kubeadm" "$BIN/kubelet" "$BIN/kubectl" "$SERVER/kubernetes/server/bin/"
for component in kube-apiserver kube-controller-manager kube-scheduler; do
  docker save -o "$SERVER/kubernetes/server/bin/$component.tar" "$(kubeadm_image "$component")"
done
docker save -o "$WORK/proxy.tar" "$(kubeadm_image kube-proxy)" "$ETCD_IMAGE" "$(kubeadm_image coredns)" \
  "$(kubeadm_image pause)" "$(kind_image const_cni.go kindnetdImage)" \
  "$(kind_image const_storage.go storageProvisionerImage)" "$(kind_image const_storage.go storageHelperImage)"
"$PYTHON" "$HERE/kindimg.py" archive "$WORK/proxy.tar" "$SERVER/kubernetes/server/bin/kube-proxy.tar"
tar -C "$SERVER" -czf "$SERVER/kubernetes-server-linux-amd64.tar.gz" kubernetes
rm -rf "$SERVER/kubernetes"
echo "kind-images: wrote $SERVER/kubernetes-server-linux-amd64.tar.gz"
