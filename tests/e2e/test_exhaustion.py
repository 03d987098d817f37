"""A host that runs short, on the binary runtime: a workspace on a file system too small for the run is refused before
anything starts; one that fills while the load test runs, and a component the kernel's OOM killer kills in a
memory-limited cgroup, each end the run with one line that names it (in failed.json too), and leave no process.

The file systems are tmpfs mounts and the cgroup a real memory cgroup: both need root (CI's user here); elsewhere the
tests say why they cannot run."""
import json
import os
import subprocess
import time

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.guard import alive
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import api_client
from conftest import failure_text, processes_mentioning, run_playbook
from kubernetes import client as k8s_client
from test_faults import SLOW, start_async, wait_until_binding


def mount_tmpfs(path, size_mb):
    os.makedirs(path, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm" % size_mb, "tmpfs", path],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (%s): %s" % (done.returncode, done.stderr.strip()))


def unmount(path, workspace):
    # Whatever failed, nothing of the run may hold the file system: the test's own check, then the unmount.
    deadline = time.monotonic() + 30
    while processes_mentioning(workspace) and time.monotonic() < deadline:
        time.sleep(1)
    subprocess.run(["umount", "-l", path], check=False)


def failed_json(bench_vars):
    path = os.path.join(bench_vars["bench_results_dir"], bench_vars["bench_run_id"], "localhost", "failed.json")
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def test_a_workspace_too_small_for_the_run_is_refused_before_anything_starts(tmp_path, bench_vars):
    small = str(tmp_path / "small")
    mount_tmpfs(small, 64)
    workspace = os.path.join(small, "ws")
    try:
        runner = run_playbook(tmp_path, "bench.yml", dict(bench_vars, bench_workspace=workspace), label="small")
        assert runner.rc != 0
        text = failure_text(runner)
        # The path, its file system, the free and the needed MiB, and the knobs that move or shrink it.
        assert "%s (tmpfs at %s) has 64 MiB free; this run needs " % (workspace, small) in text, text
        assert "etcd data" in text and "change bench_workspace, or lower bench_jobs" in text, text
        assert not os.path.exists(workspace), "the run created its workspace before the check"
    finally:
        unmount(small, workspace)


def test_a_file_system_filled_during_the_load_test_is_named_and_nothing_is_left(tmp_path, bench_vars):
    fs = str(tmp_path / "fs")
    mount_tmpfs(fs, 320)
    workspace = os.path.join(fs, "ws")
    try:
        thread, runner = start_async(tmp_path, dict(bench_vars, bench_workspace=workspace, **SLOW), "fill")
        wait_until_binding(runner, workspace)
        with open(os.path.join(fs, "filler"), "wb") as filler:
            try:
                while True:
                    filler.write(b"\0" * (1 << 20))
                    filler.flush()
            except OSError:
                pass   # full
        thread.join(600)
        assert runner.rc != 0
        failed = failed_json(bench_vars)
        assert failed["msg"].startswith("the disk is full: %s (tmpfs at %s) has 0 MiB free of 320 MiB" % (workspace, fs)), \
            failed["msg"]
        assert "\n" not in failed["msg"]
        assert failed["exhaustion"]["kind"] == "disk" and failed["exhaustion"]["mount"] == fs
        assert failed["schedulers"]["default"]["exhaustion"] == failed["exhaustion"]
        assert processes_mentioning(workspace) == []
    finally:
        unmount(fs, workspace)


def memory_cgroup(name, limit_mb):
    """A memory cgroup of ``limit_mb`` MiB (v1's memory controller or v2's memory.max): (its directory, the file a
    pid is moved in with); the test is skipped where the machine gives none."""
    for root, limit_file in (("/sys/fs/cgroup/memory", "memory.limit_in_bytes"), ("/sys/fs/cgroup", "memory.max")):
        if os.path.exists(os.path.join(root, limit_file if root.endswith("memory") else "cgroup.controllers")):
            path = os.path.join(root, name)
            try:
                os.makedirs(path, exist_ok=True)
                with open(os.path.join(path, limit_file), "w", encoding="ascii") as handle:
                    handle.write(str(limit_mb << 20))
            except OSError as error:
                pytest.skip("no memory cgroup can be made here: %s" % error)
            return path
    pytest.skip("this machine has no memory cgroup controller")
    return None


def grow_until_gone(workspace, pid, limit=400):
    core = k8s_client.CoreV1Api(api_client(os.path.join(workspace, "clusters", "bench", "admin.kubeconfig"), None, 2))
    for index in range(limit):
        if not alive(pid):
            return
        body = {"metadata": {"name": "ballast-%d" % index}, "data": {"ballast": "x" * 900_000}}
        try:
            core.create_namespaced_config_map("default", body, _request_timeout=10, _preload_content=False).release_conn()
        except Exception:  # noqa: BLE001 - the server is going down: the loop ends when it is gone
            time.sleep(0.5)
    pytest.fail("kube-apiserver (pid %d) was not killed in a 64 MiB cgroup after %d ConfigMaps of 900 kB" % (pid, limit))


def test_a_component_the_oom_killer_kills_is_named_with_the_memory_it_held(tmp_path, bench_vars):
    group = memory_cgroup("kube-sched-bench-e2e-%s" % bench_vars["bench_run_id"], 64)
    workspace = bench_vars["bench_workspace"]
    try:
        thread, runner = start_async(tmp_path, dict(bench_vars, **SLOW), "oom")
        wait_until_binding(runner, workspace)
        with open(os.path.join(workspace, "clusters", "bench", "run", "kube-apiserver.pid"), encoding="ascii") as handle:
            pid = int(handle.read())
        # From now on every page the API server allocates is charged to a 64 MiB limit; ConfigMaps of 900 kB, which
        # its watch cache keeps, make it grow beyond what it held: the kernel kills it.
        with open(os.path.join(group, "cgroup.procs"), "w", encoding="ascii") as handle:
            handle.write(str(pid))
        grow_until_gone(workspace, pid)
        thread.join(600)
        assert runner.rc != 0
        failed = failed_json(bench_vars)
        assert failed["msg"].startswith("out of memory: the kernel's OOM killer killed kube-apiserver (pid %d, " % pid), \
            failed["msg"] + "\n" + failure_text(runner)
        assert "at its memory cgroup's limit" in failed["msg"], failed["msg"]
        assert failed["exhaustion"]["kind"] == "memory" and failed["exhaustion"]["component"] == "kube-apiserver"
        assert failed["exhaustion"]["memory_mb"] > 0
        assert processes_mentioning(workspace) == []
    finally:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.rmdir(group)
                break
            except OSError:
                time.sleep(1)
