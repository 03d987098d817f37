#!/usr/bin/env bash
# Build, offline, the images of a batch scheduler's release for the kind runtime on a machine without
# an image registry (test set-up only; the product never runs this on a lab host). Each image gets the
# exact name and tag the release manifest names, so that the product mirrors it into its local
# registry (registry_image_prefix, "pull unless present") as it would an image pulled from upstream.
#   kueue   registry.k8s.io/kueue/kueue:<pin> (its manager, built from sigs.k8s.io/kueue) and the
#           kube-rbac-proxy sidecar at the tag Kueue's config/default names (github.com/brancz/kube-rbac-proxy)
#   hack/scheduler-images.sh kueue
# Versions come from the product's version matrix (filter_plugins/version_matrix.py, set "modern").
# Cached by tag: a warm run builds nothing. GOPROXY/GONOSUMDB from the environment, as for any Go build.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SCHEDULER="${1:-}"
case "$SCHEDULER" in kueue) ;; *)
  echo "scheduler-images: the first argument must be kueue, not '$SCHEDULER'" >&2; exit 2 ;;
esac
PYTHON="${KIND_IMAGES_PYTHON:-$HERE/../.venv/bin/python}"
pin() { "$PYTHON" "$HERE/kind-images/kindimg.py" pin "$1"; }
VERSION=$(pin "$SCHEDULER")
CACHE="${KIND_IMAGES_CACHE:-$HOME/.cache/kube-sched-bench}"
OUT="$CACHE/scheduler-images/$SCHEDULER-$VERSION"
export GOPATH="$CACHE/go/path" GOMODCACHE="$CACHE/go/mod" GOCACHE="$CACHE/go/build" GOFLAGS=-modcacherw
export GOTOOLCHAIN="go$(pin go)" CGO_ENABLED=0
export PATH="/usr/local/go/bin:$PATH"
WORK=$(mktemp -d /var/tmp/sched-bench-scheduler-images.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=hack/kind-images/scratch.sh
source "$HERE/kind-images/scratch.sh"

log() { echo "scheduler-images: $*"; }
have() { docker image inspect "$1" >/dev/null 2>&1; }
module_dir() { go mod download -json "$1@$2" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])'; }
# Build <package dir> of <module>@<version> into $OUT/bin, once, inside the module's own directory in the
# module cache (its go.mod and go.sum as released; `go install pkg@version` also asks the proxy for the
# module's version list, which the proxy refuses for some modules).
build() {
  local module="$1" version="$2" package="$3" name="${3##*/}" dir
  if [ ! -x "$OUT/bin/$name" ]; then
    log "building $module@$version ($package) with $GOTOOLCHAIN" >&2
    dir=$(module_dir "$module" "$version")
    (cd "$dir" && go build -trimpath -o "$OUT/bin/$name" "./$package")
  fi
  echo "$OUT/bin/$name"
}

START=$(date +%s)
mkdir -p "$OUT/bin"
# Upstream's images run as distroless's nonroot user; Kueue's Deployment asks for runAsNonRoot.
export SCRATCH_USER=65532:65532
KUEUE_IMAGE="registry.k8s.io/kueue/kueue:$VERSION"
if ! have "$KUEUE_IMAGE"; then
  manager=$(build sigs.k8s.io/kueue "$VERSION" cmd/kueue)
  scratch_image "$KUEUE_IMAGE" /manager "$manager:/manager"
fi
# The sidecar's image as the release names it (config/default/manager_auth_proxy_patch.yaml).
PROXY_IMAGE=$(sed -n 's/^ *image: *\(.*kube-rbac-proxy:.*\)$/\1/p' \
  "$(module_dir sigs.k8s.io/kueue "$VERSION")/config/default/manager_auth_proxy_patch.yaml")
if [ -z "$PROXY_IMAGE" ]; then
  echo "scheduler-images: Kueue $VERSION's config/default names no kube-rbac-proxy image" >&2
  exit 1
fi
if ! have "$PROXY_IMAGE"; then
  proxy=$(build github.com/brancz/kube-rbac-proxy "${PROXY_IMAGE##*:}" cmd/kube-rbac-proxy)
  scratch_image "$PROXY_IMAGE" /usr/local/bin/kube-rbac-proxy "$proxy:/usr/local/bin/kube-rbac-proxy"
fi
log "$SCHEDULER $VERSION: $KUEUE_IMAGE $PROXY_IMAGE ready in $(( $(date +%s) - START )) s"
