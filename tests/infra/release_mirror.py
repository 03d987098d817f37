"""Release manifests of the batch schedulers, built the way upstream builds them and served on 127.0.0.1.

GitHub is not reachable here, so the kind runtime's release manifests are built from the Go module
sources (Kueue: `kustomize build config/default` after `kustomize edit set image`, as its Makefile's
`artifacts` target; Volcano: installer/volcano-development.yaml at the tag; YuniKorn: the chart
repository of ../shared/mirror/charts) and served from 127.0.0.1 laid out like the upstream URLs, so
that a test passes URL templates pointing at that server (scheduler_release_manifest_urls,
scheduler_chart_repository_urls): the mirror-replacement path a user takes. Used by
tests/e2e/test_kind_manifests.py, tests/e2e/test_kind.py and tests/infra/bench_kind.py (`make bench-kind`).
"""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.versions.matrix import VERSION_SETS

from infra.go_mirror import MIRROR_GO, go_mirror_env

# The pins of the version set of this machine's kernel (a modern one).
VERSIONS = {name: VERSION_SETS["modern"][name] for name in ("kueue", "volcano")}
MIRROR_CHARTS = pathlib.Path(MIRROR_GO).parent / "charts" if MIRROR_GO else None
MODULES = {"kueue": "sigs.k8s.io/kueue", "volcano": "volcano.sh/volcano"}
KUSTOMIZE = "v5.5.0"
# Paths below the server's root, the same as below the upstream hosts in the default templates.
UPSTREAM_PATHS = {
    "kueue": "kubernetes-sigs/kueue/releases/download/{version}/manifests.yaml",
    "volcano": "volcano-sh/volcano/{version}/installer/volcano-development.yaml",
}
CACHE = pathlib.Path.home() / ".cache" / "kube-sched-bench"


def go_env():
    go = CACHE / "go"
    return dict(os.environ, GOMODCACHE=str(go / "mod"), GOCACHE=str(go / "build"), GOPATH=str(go / "path"),
                GOFLAGS="-mod=mod -modcacherw", **go_mirror_env())


def go_binary():
    found = shutil.which("go") or "/usr/local/go/bin/go"
    assert os.path.exists(found), "Go is needed to read the schedulers' module sources"
    return found


def module_dir(module, version, cwd):
    """The module's source directory in the module cache (downloaded through the Go proxy if missing)."""
    result = subprocess.run([go_binary(), "mod", "download", "-json", "%s@%s" % (module, version)],
                            cwd=cwd, env=go_env(), capture_output=True, text=True, check=False, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    return pathlib.Path(json.loads(result.stdout)["Dir"])


def kustomize(cwd):
    binary = CACHE / "tools" / ("kustomize-" + KUSTOMIZE) / "kustomize"
    if not binary.exists():
        env = dict(go_env(), GOBIN=str(binary.parent))
        result = subprocess.run([go_binary(), "install", "sigs.k8s.io/kustomize/kustomize/v5@" + KUSTOMIZE],
                                cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=1800)
        assert result.returncode == 0, result.stderr
    return str(binary)


def build_kueue(path, work):
    """Kueue's manifests.yaml: its Makefile's `artifacts` target, on a writable copy of the module's config/."""
    config = work / "kueue-config"
    shutil.copytree(module_dir(MODULES["kueue"], VERSIONS["kueue"], work) / "config", config)
    for directory, _, files in os.walk(config):
        os.chmod(directory, 0o755)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o644)
    tool = kustomize(work)
    image = "controller=registry.k8s.io/kueue/kueue:" + VERSIONS["kueue"]
    for argv, cwd in (([tool, "edit", "set", "image", image], config / "components" / "manager"),
                      ([tool, "build", "default", "-o", str(path)], config)):
        result = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, timeout=300)
        assert result.returncode == 0, result.stderr


def build_release_manifests(root, work, names=tuple(VERSIONS), charts=True):
    """Write the release manifests of ``names`` below ``root`` at their upstream paths and, with ``charts``,
    YuniKorn's chart repository; return name -> path."""
    paths = {name: root / UPSTREAM_PATHS[name].format(version=VERSIONS[name]) for name in names}
    for path in paths.values():
        path.parent.mkdir(parents=True, exist_ok=True)
    if "kueue" in paths:
        build_kueue(paths["kueue"], work)
    if "volcano" in paths:
        # Volcano: the installer manifest of the tag, as it is.
        shutil.copy(module_dir(MODULES["volcano"], VERSIONS["volcano"], work) / "installer" / "volcano-development.yaml",
                    paths["volcano"])
    if charts:
        # YuniKorn: its chart repository (index.yaml and the chart), as a lab's chart mirror serves it.
        assert MIRROR_CHARTS, "the module and chart mirror beside the project (../shared/mirror) was not found"
        shutil.copytree(MIRROR_CHARTS, root / "charts")
    return paths


def free_port(ports):
    for port in ports:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) != 0:
                return port
    raise AssertionError("no free port in %s" % (ports,))


def serve(root, ports):
    """A plain HTTP server on 127.0.0.1 for ``root``, on the first free port of ``ports``; returns (process, base URL)."""
    port = free_port(ports)
    process = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                                "--directory", str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return process, "http://127.0.0.1:%d" % port
        time.sleep(0.1)
    process.kill()
    raise AssertionError("the manifest server did not listen on %d" % port)


def templates(base):
    return {name: "%s/%s" % (base, path) for name, path in UPSTREAM_PATHS.items()}


