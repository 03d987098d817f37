"""The module versions the module proxy here refuses, as a file-based module proxy beside the project
(../shared/mirror/go, see its README). The tests, `make scheduler-images` and `make bench-kind` put it first in
the proxy list, the way a lab puts its own mirror first.

Run as a script, prints GOPROXY=... GONOSUMDB=... (NAME=value words, nothing without a mirror) for a shell to
export (tests/infra/scheduler-images.sh)."""
import os
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _mirror_dir():
    """../shared/mirror/go beside this checkout or, for a clean clone of a checkout on this machine
    (CI clones the working copy elsewhere), beside the checkout it was cloned from; None without one."""
    bases = [ROOT]
    origin = subprocess.run(["git", "-C", ROOT, "remote", "get-url", "origin"], capture_output=True, text=True,
                            check=False).stdout.strip()
    if origin and os.path.isdir(origin):
        bases.append(os.path.realpath(origin))
    for base in bases:
        path = os.path.join(os.path.dirname(base), "shared", "mirror", "go")
        if os.path.isdir(path):
            return path
    return None


MIRROR_GO = _mirror_dir()
MIRRORED_MODULES = "github.com/apache/yunikorn-*,volcano.sh/volcano,sigs.k8s.io/scheduler-plugins"


def go_mirror_env():
    """GOPROXY (the mirror, then this machine's own proxy list) and GONOSUMDB; empty without a mirror."""
    if MIRROR_GO is None:
        return {}
    host_proxy = os.environ.get("GOPROXY", "")
    if not host_proxy and shutil.which("go"):
        host_proxy = subprocess.run(["go", "env", "GOPROXY"], capture_output=True, text=True, check=False).stdout.strip()
    proxies = ["file://" + os.path.realpath(MIRROR_GO)] + ([host_proxy] if host_proxy else [])
    return {"GOPROXY": ",".join(proxies), "GONOSUMDB": MIRRORED_MODULES}


def mirror_vars():
    """The same as the golang role's variables (golang_goproxy, golang_gonosumdb)."""
    env = go_mirror_env()
    return {"golang_goproxy": env["GOPROXY"], "golang_gonosumdb": env["GONOSUMDB"]} if env else {}


if __name__ == "__main__":
    print(" ".join("%s=%s" % pair for pair in go_mirror_env().items()))
