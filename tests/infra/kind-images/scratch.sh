# A FROM-scratch image from binaries on this machine, for test set-up without an image registry.
# Sourced by tests/infra/kind-images/images.sh and tests/infra/scheduler-images.sh; needs $WORK (a scratch
# directory). SCRATCH_USER (uid:gid; unset: root) is the image's user, for manifests that ask
# for runAsNonRoot.
# The binaries (at their paths in the image), the libraries they link, /tmp.
#   scratch_image <image> <entrypoint> <source:path in image>...
scratch_image() {
  local image="$1" entrypoint="$2" rootfs="$WORK/rootfs" pair source target lib
  shift 2
  rm -rf "$rootfs" && mkdir -p "$rootfs/tmp" "$rootfs/etc" && chmod 1777 "$rootfs/tmp"
  echo 'root:x:0:0:root:/:/bin/sh' >"$rootfs/etc/passwd"
  echo 'root:x:0:' >"$rootfs/etc/group"
  for pair in "$@"; do
    source="${pair%%:*}" target="${pair#*:}"
    mkdir -p "$rootfs$(dirname "$target")"
    cp -a "$source" "$rootfs$target"
    if [ ! -L "$source" ] && ldd "$source" >/dev/null 2>&1; then
      for lib in $(ldd "$source" | grep -oE '/[^ ]+'); do
        mkdir -p "$rootfs$(dirname "$lib")"
        cp -L "$lib" "$rootfs$lib"
      done
    fi
  done
  local changes=(--change "ENTRYPOINT [\"$entrypoint\"]" --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin')
  if [ -n "${SCRATCH_USER:-}" ]; then changes+=(--change "USER $SCRATCH_USER"); fi
  tar -C "$rootfs" -c . | docker import "${changes[@]}" - "$image" >/dev/null
  echo "kind-images: built $image"
}

