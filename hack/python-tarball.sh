#!/usr/bin/env bash
# Package a CPython of this machine as a relocatable tarball laid out like a
# python-build-standalone "install_only" build (python/bin/python3, python/lib/...),
# for the python_bootstrap molecule scenario: the toolkit downloads it through
# bench_python_bootstrap_url as it would the upstream build.
#   hack/python-tarball.sh OUT.tar.gz [PYTHON]     (PYTHON: python3 on PATH)
# The interpreter, libpython, the standard library (without tests, tkinter, idle and
# site-packages) and every shared library they link to that is not glibc's are copied;
# patchelf points their run paths at $ORIGIN, so the tree runs from any directory on a
# host with this machine's glibc or newer, with no LD_LIBRARY_PATH.
set -euo pipefail

OUT=${1:?usage: hack/python-tarball.sh OUT.tar.gz [PYTHON]}
PYTHON=${2:-python3}
command -v patchelf >/dev/null 2>&1 || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patchelf >/dev/null
}

read -r EXE STDLIB LIBDIR LDLIBRARY VERSION < <("$PYTHON" -c '
import os, sys, sysconfig
print(os.path.realpath(sys.executable), sysconfig.get_paths()["stdlib"], sysconfig.get_config_var("LIBDIR"),
      sysconfig.get_config_var("INSTSONAME") or "-", "%d.%d" % sys.version_info[:2])')

WORK=$(mktemp -d /var/tmp/sched-bench-python.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
P="$WORK/python"
mkdir -p "$P/bin" "$P/lib"
cp "$EXE" "$P/bin/python$VERSION"
ln -s "python$VERSION" "$P/bin/python3"
ln -s "python$VERSION" "$P/bin/python"
tar -C "$(dirname "$STDLIB")" -cf - \
  --exclude="python$VERSION/site-packages/*" --exclude="python$VERSION/test" --exclude="python$VERSION/idlelib" \
  --exclude="python$VERSION/tkinter" --exclude="python$VERSION/turtledemo" --exclude="*/__pycache__" \
  --exclude="python$VERSION/lib-dynload/_tkinter*" "python$VERSION" | tar -C "$P/lib" -xf -
if [ "$LDLIBRARY" != - ] && [ -e "$LIBDIR/$LDLIBRARY" ]; then
  cp -L "$LIBDIR/$LDLIBRARY" "$P/lib/"
fi

# glibc's own libraries stay the host's; every other dependency travels with the tree.
glibc='^(linux-vdso|ld-linux|libc|libm|libpthread|libdl|librt|libutil|libresolv|libanl)\.so'
while :; do
  added=0
  for f in "$P/bin/python$VERSION" "$P"/lib/*.so* "$P/lib/python$VERSION"/lib-dynload/*.so; do
    while read -r lib path; do
      [ -n "$path" ] && [ -e "$path" ] || continue
      [[ "$lib" =~ $glibc ]] && continue
      [ -e "$P/lib/$lib" ] && continue
      cp -L "$path" "$P/lib/$lib"
      added=1
    done < <(ldd "$f" 2>/dev/null | awk '$2 == "=>" {print $1, $3}')
  done
  [ "$added" = 0 ] && break
done

patchelf --set-rpath '$ORIGIN/../lib' "$P/bin/python$VERSION"
for f in "$P"/lib/*.so*; do patchelf --set-rpath '$ORIGIN' "$f"; done
for f in "$P/lib/python$VERSION"/lib-dynload/*.so; do patchelf --set-rpath '$ORIGIN/../..' "$f"; done

# The tree must run on its own: the modules the toolkit's virtualenv and pip need.
env -i "$P/bin/python3" -c 'import ensurepip, venv, ssl, hashlib, sqlite3, ctypes, zlib, lzma, bz2, json, sys; print(sys.prefix)' >/dev/null
tar -C "$WORK" -czf "$OUT" python
echo "python-tarball: $OUT ($(du -h "$OUT" | cut -f1), CPython $("$P/bin/python3" -c 'import platform; print(platform.python_version())'))"
