#!/usr/bin/env bash
# Build, offline, everything a kind cluster needs on a machine without an image
# registry (test set-up only; the product never runs this on a lab host):
#   binaries  kubelet, kubeadm, kubectl and the control plane from k8s.io/kubernetes (a wrapper
#             module with its replace directives, as the binary runtime builds it), etcd,
#             CoreDNS, local-path-provisioner and a pause of our own, from the Go module proxy
#   base      sched-bench/kind-base:<version>: kind's base image from Debian's archive
#             (systemd, containerd, runc, CNI plugins, iptables...) with our entrypoint
#   images    the images a node holds, with the names and tags kubeadm and kind expect
#   node      kindest/node:<version> by `kind build node-image --type file`, never pulling
#   tests/infra/kind-images.sh <kubernetes version> [binaries|base|images|node|all]   (default all)
# Cached per version under ~/.cache/kube-sched-bench/kind-images/<version>/: a warm run builds nothing.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
VERSION="${1:-}"
STEP="${2:-all}"
case "$STEP" in binaries|base|images|node|all) ;; *)
  echo "kind-images: step '$STEP' is not one of binaries, base, images, node, all" >&2; exit 2 ;;
esac
if ! [[ "$VERSION" =~ ^v1\.[0-9]+\.[0-9]+$ ]]; then
  echo "kind-images: the first argument must be a Kubernetes release such as v1.32.2, not '$VERSION'" >&2
  exit 2
fi
PYTHON="${KIND_IMAGES_PYTHON:-$HERE/../../.venv/bin/python}"
# KIND_VERSION, ETCD_VERSION (the build module's template needs one), GO_VERSION of the version set whose node image is kindest/node:$VERSION, and
# BUILDER_KIND_VERSION, the kind that builds the node image (and whose images it holds)
eval "$("$PYTHON" "$HERE/kind-images/kindimg.py" versions "$VERSION")"

CACHE="${KIND_IMAGES_CACHE:-$HOME/.cache/kube-sched-bench}"
OUT="$CACHE/kind-images/$VERSION"
BIN="$OUT/bin"
NODE_IMAGE="kindest/node:$VERSION"
BASE_IMAGE="sched-bench/kind-base:$VERSION"
mkdir -p "$BIN"

export GOPATH="$CACHE/go/path" GOMODCACHE="$CACHE/go/mod" GOCACHE="$CACHE/go/build" GOFLAGS=-modcacherw
export GOTOOLCHAIN="go$GO_VERSION"
export PATH="/usr/local/go/bin:$PATH"

log() { echo "kind-images: $*"; }
done_stamp() { [ -f "$OUT/.$1" ]; }
stamp() { date -u +%FT%TZ >"$OUT/.$1"; }
# The image kubeadm $VERSION asks for, by its last path element (pause, etcd, coredns...).
kubeadm_image() { "$BIN/kubeadm" config images list --kubernetes-version "$VERSION" | grep "/$1:"; }
# Where the module cache holds <module>@<version> (downloaded if it is not there).
module_dir() { go mod download -json "$1" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])'; }
kind_module() { module_dir "sigs.k8s.io/kind@$BUILDER_KIND_VERSION"; }

build_binaries() {
  done_stamp binaries && return 0
  local module="$OUT/build/kubernetes" etcd_module="$OUT/build/etcd" minor
  minor=$(echo "$VERSION" | cut -d. -f2)
  mkdir -p "$module" "$etcd_module"
  # etcd is built in a module of its own: in one graph with an older Kubernetes (v1.27), etcd's newer
  # OpenTelemetry leaves packages Kubernetes imports without a module ("finding module for package
  # go.opentelemetry.io/otel/metric/global").
  "$PYTHON" "$HERE/kind-images/kindimg.py" gomod "$VERSION" "$ETCD_VERSION" >"$module/go.mod"
  (cd "$module" && go mod edit -droprequire=go.etcd.io/etcd/server/v3)
  # Every staging module of this release, as its own go.mod lists them (v1.27 has some that v1.32 dropped).
  local kube_dir staging
  kube_dir=$(module_dir "k8s.io/kubernetes@$VERSION")
  for staging in $(go mod edit -json "$kube_dir/go.mod" | "$PYTHON" -c 'import json,sys
print(" ".join(r["Old"]["Path"] for r in json.load(sys.stdin).get("Replace") or [] if r["New"]["Path"].startswith("./staging/")))'); do
    (cd "$module" && go mod edit -replace="$staging=$staging@v0.${VERSION#v1.}")
  done
  cat >"$module/tools.go" <<'GO'
//go:build tools

// Package tools lists the commands this module builds, so that go mod tidy keeps them.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubeadm"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
GO
  log "building Kubernetes $VERSION (kubelet, kubeadm, kubectl, kube-proxy, control plane) with Go $GO_VERSION"
  (cd "$module" && go mod tidy)
  local ldflags="-X k8s.io/component-base/version.gitVersion=$VERSION -X k8s.io/component-base/version.gitMajor=1"
  ldflags="$ldflags -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/client-go/pkg/version.gitVersion=$VERSION"
  ldflags="$ldflags -X k8s.io/component-base/version.gitTreeState=clean"
  (cd "$module" && go build -trimpath -ldflags="$ldflags" -o "$BIN/" \
    k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubeadm k8s.io/kubernetes/cmd/kubectl \
    k8s.io/kubernetes/cmd/kube-proxy k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler)
  # The node's etcd is the one this kubeadm asks for (v1.32: the version sets' etcd; v1.27: 3.5.7).
  local etcd
  etcd="v$(kubeadm_image etcd | sed 's/.*://; s/-.*//')"
  printf 'module sched-bench.local/build/etcd\n\ngo 1.23.0\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$etcd" \
    >"$etcd_module/go.mod"
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' >"$etcd_module/tools.go"
  log "building etcd $etcd (kubeadm $VERSION's) with Go $GO_VERSION"
  (cd "$etcd_module" && go mod tidy && go build -trimpath -o "$BIN/etcd" go.etcd.io/etcd/server/v3)
  # The images kubeadm pulls besides its own, at the tags this kubeadm asks for.
  local coredns
  coredns=$(kubeadm_image coredns | sed 's/.*://')
  log "building CoreDNS $coredns"
  GOBIN="$BIN" go install "github.com/coredns/coredns@$coredns"
  local provisioner
  provisioner=$(sed -n 's/^VERSION=//p' "$(kind_module)/images/local-path-provisioner/Makefile")
  log "building local-path-provisioner $provisioner (the version kind $BUILDER_KIND_VERSION's node image holds)"
  GOBIN="$BIN" go install "github.com/rancher/local-path-provisioner@$provisioner"
  log "building pause"
  (cd "$HERE/kind-images" && CGO_ENABLED=0 go build -trimpath -o "$BIN/pause" pause.go)
  stamp binaries
}

build_base() {
  # Always: the debootstrap stage is cached, and Docker's build cache makes the rest a no-op when
  # tests/infra/kind-images/base/ has not changed.
  "$HERE/kind-images/base.sh" "$BASE_IMAGE" "$(kubeadm_image pause)"
}
image_id() { docker image inspect -f '{{.Id}}' "$1" 2>/dev/null || true; }

build_images() {
  # Built again when the base image (kube-proxy's) changed since.
  local base
  base=$(image_id "$BASE_IMAGE")
  if [ "$(cut -d' ' -f1 "$OUT/.images" 2>/dev/null)" = "$base" ] \
     && [ -f "$OUT/server/kubernetes-server-linux-amd64.tar.gz" ]; then return 0; fi
  "$HERE/kind-images/images.sh" "$VERSION" "$BIN" "$BASE_IMAGE" "$(kind_module)" "$OUT/server"
  echo "$base $(date -u +%FT%TZ)" >"$OUT/.images"
}

build_node() {
  # Built again when the base image or the server tarball changed since.
  local inputs
  inputs="$(image_id "$BASE_IMAGE") $(cat "$OUT/.images")"
  if [ "$(cat "$OUT/.node" 2>/dev/null)" = "$inputs" ] && [ -n "$(image_id "$NODE_IMAGE")" ]; then return 0; fi
  if ! [ -x "$OUT/kind/kind" ] || ! "$OUT/kind/kind" version | grep -q "^kind $BUILDER_KIND_VERSION "; then
    log "building kind $BUILDER_KIND_VERSION (the node image's builder; the version set runs kind $KIND_VERSION)"
    GOBIN="$OUT/kind" go install "sigs.k8s.io/kind@$BUILDER_KIND_VERSION"
  fi
  log "building $NODE_IMAGE from $OUT/server/kubernetes-server-linux-amd64.tar.gz on $BASE_IMAGE"
  "$OUT/kind/kind" build node-image --type file --base-image "$BASE_IMAGE" --image "$NODE_IMAGE" \
    "$OUT/server/kubernetes-server-linux-amd64.tar.gz"
  echo "$inputs" >"$OUT/.node"
  # The test registries (test_kind's and bench_kind's, molecule kind_cluster's) keep images by tag, and the product
  # pushes a tag only when its registry lacks it: forget the old node image there, so that the next run pushes this.
  local store
  for store in "$CACHE/kind-e2e-registry" "${SCHED_BENCH_KIND_SHARED:-/var/tmp/kube-sched-bench-molecule}/registry"; do
    rm -rf "$store/docker/registry/v2/repositories/kindest/node/_manifests/tags/$VERSION"
  done
}

START=$(date +%s)
case "$STEP" in
  binaries) build_binaries ;;
  base) build_base ;;
  images) build_images ;;
  node) build_node ;;
  all) build_binaries; build_base; build_images; build_node ;;
esac
log "$STEP done for $VERSION in $(( $(date +%s) - START )) s (cache: $OUT)"
