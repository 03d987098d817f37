#!/usr/bin/env bash
# Build, offline, the images of a batch scheduler's release for the kind runtime on a machine without
# an image registry (test set-up only; the product never runs this on a lab host). Each image gets the
# exact name and tag the release manifest names, so that the product mirrors it into its local
# registry (registry_image_prefix, "pull unless present") as it would an image pulled from upstream.
#   kueue   registry.k8s.io/kueue/kueue:<pin> (its manager, built from sigs.k8s.io/kueue) and the
#           kube-rbac-proxy sidecar at the tag Kueue's config/default names (github.com/brancz/kube-rbac-proxy)
#   volcano docker.io/volcanosh/vc-{scheduler,controller-manager,webhook-manager}:<pin>, built from
#           volcano.sh/volcano; the webhook manager's image also runs the release's admission-init Job
#           (gen-admission-secret.sh, a bash script: openssl, kubectl, coreutils), so it holds those from
#           this machine and the kubectl of `make kind-images`
#   yunikorn  docker.io/apache/yunikorn:{scheduler,admission}-<pin without v>, the shim and the admission
#           controller built from github.com/apache/yunikorn-k8shim as its Makefile builds them (its chart's web UI
#           container is left out by the product: the scheduler descriptor's release.without_containers)
#   coscheduling  registry.k8s.io/scheduler-plugins/{kube-scheduler,controller}:<pin>, built from
#           sigs.k8s.io/scheduler-plugins (at /bin/kube-scheduler and /bin/controller, as its build/ Dockerfiles)
#   tests/infra/scheduler-images.sh [kueue|volcano|yunikorn|coscheduling]   (no argument: all four, what test-kind deploys)
# Versions come from the product's version matrix (plugin_utils/versions/matrix.py, set "modern").
# Cached by tag: a warm run builds nothing. GOPROXY/GONOSUMDB: the module mirror beside the project first
# (../shared/mirror/go through tests/infra/go_mirror.py, as the e2e tests use it: Volcano's module is only there),
# then the environment's.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SCHEDULER="${1:-}"
if [ -z "$SCHEDULER" ]; then
  for each in kueue volcano yunikorn coscheduling; do "$0" "$each"; done
  exit 0
fi
case "$SCHEDULER" in kueue | volcano | yunikorn | coscheduling) ;; *)
  echo "scheduler-images: the first argument must be kueue, volcano, yunikorn or coscheduling, not '$SCHEDULER'" >&2
  exit 2 ;;
esac
PYTHON="${KIND_IMAGES_PYTHON:-$HERE/../../.venv/bin/python}"
pin() { "$PYTHON" "$HERE/kind-images/kindimg.py" pin "$1"; }
VERSION=$(pin "$SCHEDULER")
CACHE="${KIND_IMAGES_CACHE:-$HOME/.cache/kube-sched-bench}"
OUT="$CACHE/scheduler-images/$SCHEDULER-$VERSION"
export GOPATH="$CACHE/go/path" GOMODCACHE="$CACHE/go/mod" GOCACHE="$CACHE/go/build" GOFLAGS=-modcacherw
export GOTOOLCHAIN="go$(pin go)" CGO_ENABLED=0
export PATH="/usr/local/go/bin:$PATH"
MIRROR_ENV=$("$PYTHON" "$HERE/go_mirror.py")
if [ -n "$MIRROR_ENV" ]; then
  # shellcheck disable=SC2086 # NAME=value words, no spaces inside
  export $MIRROR_ENV
fi
WORK=$(mktemp -d /var/tmp/sched-bench-scheduler-images.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=tests/infra/kind-images/scratch.sh
source "$HERE/kind-images/scratch.sh"

log() { echo "scheduler-images: $*"; }
have() { docker image inspect "$1" >/dev/null 2>&1; }
module_dir() { go mod download -json "$1@$2" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["Dir"])'; }
# Build <package dir> of <module>@<version> into $OUT/bin/<name> (default: the package's last element), once,
# inside the module's own directory in the module cache (its go.mod and go.sum as released; `go install
# pkg@version` also asks the proxy for the module's version list, which the proxy refuses for some modules).
# BUILD_FLAGS (an array) goes to go build as it is.
BUILD_FLAGS=()
build() {
  local module="$1" version="$2" package="$3" name="${4:-${3##*/}}" dir
  if [ ! -x "$OUT/bin/$name" ]; then
    log "building $module@$version ($package) with $GOTOOLCHAIN" >&2
    dir=$(module_dir "$module" "$version")
    (cd "$dir" && go build -trimpath "${BUILD_FLAGS[@]}" -o "$OUT/bin/$name" "./$package")
  fi
  echo "$OUT/bin/$name"
}

kueue_images() {
  # Upstream's images run as distroless's nonroot user; Kueue's Deployment asks for runAsNonRoot.
  export SCRATCH_USER=65532:65532
  # Its module zip holds vendor/modules.txt (no vendored code), which would make go build default to -mod=vendor.
  BUILD_FLAGS=(-mod=mod)
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
  log "kueue $VERSION: $KUEUE_IMAGE $PROXY_IMAGE ready"
}

volcano_images() {
  local component image binary kubectl
  for component in scheduler controller-manager; do
    image="docker.io/volcanosh/vc-$component:$VERSION"
    if ! have "$image"; then
      binary=$(build volcano.sh/volcano "$VERSION" "cmd/$component" "vc-$component")
      scratch_image "$image" "/vc-$component" "$binary:/vc-$component"
    fi
  done
  image="docker.io/volcanosh/vc-webhook-manager:$VERSION"
  if ! have "$image"; then
    kubectl="$CACHE/kind-images/$("$PYTHON" "$HERE/kind-images/kindimg.py" node-version)/bin/kubectl"
    if [ ! -x "$kubectl" ]; then
      echo "scheduler-images: $kubectl is missing: run \`make kind-images\` first" >&2
      exit 1
    fi
    binary=$(build volcano.sh/volcano "$VERSION" cmd/webhook-manager vc-webhook-manager)
    # The module cache keeps no file mode: the Job runs the script as ./gen-admission-secret.sh.
    local script="$WORK/gen-admission-secret.sh"
    install -m 0755 "$(module_dir volcano.sh/volcano "$VERSION")/installer/dockerfile/webhook-manager/gen-admission-secret.sh" "$script"
    # The script is `#!/bin/sh` but uses bash's [[ ]] and `function`: its upstream image's sh is busybox.
    scratch_image "$image" /vc-webhook-manager "$binary:/vc-webhook-manager" "$script:/gen-admission-secret.sh" \
      /bin/bash:/bin/sh /usr/bin/openssl:/usr/bin/openssl /etc/ssl/openssl.cnf:/usr/lib/ssl/openssl.cnf \
      /usr/bin/cat:/usr/bin/cat /usr/bin/base64:/usr/bin/base64 /usr/bin/tr:/usr/bin/tr "$kubectl:/usr/bin/kubectl"
  fi
  log "volcano $VERSION: the scheduler, controller-manager and webhook-manager images ready"
}

yunikorn_images() {
  # Its Dockerfiles (docker/scheduler, docker/admission): FROM scratch, user 4444.
  export SCRATCH_USER=4444:4444
  local tag="${VERSION#v}" image binary
  BUILD_FLAGS=(-tags netgo -ldflags "-X github.com/apache/yunikorn-k8shim/pkg/conf.buildVersion=$tag")
  image="docker.io/apache/yunikorn:scheduler-$tag"
  if ! have "$image"; then
    binary=$(build github.com/apache/yunikorn-k8shim "$VERSION" pkg/cmd/shim yunikorn-scheduler)
    scratch_image "$image" /yunikorn-scheduler "$binary:/yunikorn-scheduler"
  fi
  image="docker.io/apache/yunikorn:admission-$tag"
  if ! have "$image"; then
    binary=$(build github.com/apache/yunikorn-k8shim "$VERSION" pkg/cmd/admissioncontroller yunikorn-admission-controller)
    scratch_image "$image" /yunikorn-admission-controller "$binary:/yunikorn-admission-controller"
  fi
  log "yunikorn $VERSION: the scheduler and admission controller images ready"
}

coscheduling_images() {
  # Its build/ Dockerfiles: distroless's nonroot user.
  export SCRATCH_USER=65532:65532
  local dir graph component image binary module
  # Its go.mod pins Kubernetes' example modules through replace directives at a version some proxies refuse, and
  # no package of the build imports them: a copy of go.mod (-modfile) points them at empty local modules, as the
  # product's own build does (the descriptor's build.graph_only).
  dir=$(module_dir sigs.k8s.io/scheduler-plugins "$VERSION")
  graph="$WORK/graph-only"
  cp "$dir/go.mod" "$WORK/go.mod" && cp "$dir/go.sum" "$WORK/go.sum"
  for module in $("$PYTHON" "$HERE/kind-images/kindimg.py" graph-only coscheduling); do
    mkdir -p "$graph/$module" && echo "module $module" >"$graph/$module/go.mod"
    go mod edit -replace="$module=$graph/$module" "$WORK/go.mod"
  done
  BUILD_FLAGS=(-modfile="$WORK/go.mod")
  for component in kube-scheduler controller; do
    image="registry.k8s.io/scheduler-plugins/$component:$VERSION"
    if ! have "$image"; then
      binary=$(build sigs.k8s.io/scheduler-plugins "$VERSION" "cmd/${component#kube-}" "$component")
      scratch_image "$image" "/bin/$component" "$binary:/bin/$component"
    fi
  done
  log "coscheduling $VERSION: the scheduler and controller images ready"
}

START=$(date +%s)
mkdir -p "$OUT/bin"
"${SCHEDULER}_images"
log "$SCHEDULER $VERSION ready in $(( $(date +%s) - START )) s"
