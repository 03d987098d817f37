"""library/sched_loadtest.py in check mode: run as a module file (its arguments on stdin, as the direct run gives
them) against a fake API server that answers only what the plan reads, it says what the test would create and
creates nothing."""
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import spec as sched_scenarios
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.actions import direct_run as bench_direct_run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORK = dict(nodes=3, node_cpu="32", node_memory="256Gi", node_pods=110, jobs=2, pods_per_job=3, pod_cpu="1",
            pod_memory="200Mi", pod_duration=30.0, wait_for="bound", timeout=60.0, submit_concurrency=4,
            client_qps=10.0, client_burst=10, queue_quota="cluster", pod_creation="job-controller",
            arrival="open-loop", submit_processes=1)
VERSION = {"major": "1", "minor": "31", "gitVersion": "v1.31.0"}


class FakeApiServer(BaseHTTPRequestHandler):
    """GET /version, and 404 for everything else (the namespace does not exist); every request is recorded."""

    requests = []

    def _answer(self):
        path = self.path.split("?")[0].rstrip("/")
        self.requests.append((self.command, path))
        if self.command == "GET" and path == "/version":
            code, body = 200, VERSION
        else:
            code, body = 404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound",
                               "code": 404, "message": "not found"}
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def kubeconfig(tmp_path):
    FakeApiServer.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeApiServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "fake",
        "clusters": [{"name": "fake", "cluster": {"server": "http://127.0.0.1:%d" % server.server_address[1]}}],
        "users": [{"name": "fake", "user": {"token": "fake"}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}]}))
    try:
        yield str(path)
    finally:
        server.shutdown()
        server.server_close()


def run_module(args):
    process = subprocess.run(
        bench_direct_run.boot_argv(sys.executable, os.path.join(ROOT, "library", "sched_loadtest.py")),
        env=bench_direct_run.boot_env(os.environ), input=json.dumps({"ANSIBLE_MODULE_ARGS": args}).encode(),
        capture_output=True, check=False, timeout=120)
    assert process.stdout, process.stderr.decode()[-2000:]
    return process.returncode, json.loads(process.stdout)


@pytest.mark.parametrize("scenario", [None, "gang"])
def test_check_mode_plans_the_fake_nodes_and_jobs_and_creates_nothing(kubeconfig, tmp_path, scenario):
    args = {"kubeconfig": kubeconfig, "output_dir": str(tmp_path / "out"), "workload": WORK,
            "_ansible_check_mode": True}
    if scenario:
        args["scenario"], problems = sched_scenarios.load(scenario)
        assert problems == []
    code, result = run_module(args)
    assert code == 0 and not result.get("failed"), result
    assert result["changed"] is False
    # The fake nodes are the scenario's cluster's, over the workload's; the burst's are the workload's.
    cluster = args["scenario"]["cluster"] if scenario else WORK
    jobs = sched_scenarios.expand(args.get("scenario") or sched_scenarios.burst(WORK))
    assert result["plan"] == {
        "server_version": "v1.31.0", "namespace": "sched-bench", "namespace_exists": False,
        "fake_nodes": cluster["nodes"], "jobs": len(jobs), "pods": sum(job["pods_per_job"] for job in jobs),
        "scheduler": "default", "output_dir": str(tmp_path / "out"),
        "note": None if scenario else capacity.capacity_note(WORK)}
    assert {method for method, _ in FakeApiServer.requests} == {"GET"}
    assert not (tmp_path / "out").exists()
