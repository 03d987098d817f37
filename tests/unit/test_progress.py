"""Progress of the load test: the file the module writes and the line the wait action prints."""
import json

import bench_async_wait
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import progress as sched_progress


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_eta_is_the_rest_at_the_rate_seen_so_far():
    assert sched_progress.eta_seconds(25, 100, 10.0) == 30.0
    assert sched_progress.eta_seconds(0, 100, 10.0) is None      # no rate yet
    assert sched_progress.eta_seconds(100, 100, 10.0) is None    # finished
    assert sched_progress.eta_seconds(5, None, 10.0) is None     # no total


def test_progress_file_is_throttled_and_forced(tmp_path):
    clock = Clock()
    path = tmp_path / "p" / ".progress.json"
    progress = sched_progress.ProgressFile(str(path), every=1.0, clock=clock)
    progress.phase("wait", total=300)
    clock.now += 10
    assert progress.update(count=100, pods_bound=100)
    state = json.loads(path.read_text())
    assert state["phase"] == "wait" and state["count"] == 100 and state["total"] == 300
    assert state["elapsed_s"] == 10.0 and state["eta_s"] == 20.0
    clock.now += 0.5
    assert not progress.update(count=150)            # too soon: not written
    assert json.loads(path.read_text())["count"] == 100
    progress.finish("complete")
    state = json.loads(path.read_text())
    assert state["done"] is True and state["outcome"] == "complete" and state["count"] == 150
    assert state["eta_s"] is None
    assert "phase_start" not in state


def test_no_path_writes_nothing(tmp_path):
    progress = sched_progress.ProgressFile(None)
    progress.phase("nodes", total=5)
    assert not progress.update(force=True, count=1)
    assert list(tmp_path.iterdir()) == []


def test_progress_lines():
    line = bench_async_wait.progress_line("default: ", {
        "phase": "wait", "count": 120, "total": 300, "wait_for": "bound", "pods_created": 300, "pods_bound": 120,
        "pods_completed": 4, "elapsed_s": 12.5, "eta_s": 18.2})
    assert line == ("default: wait 120/300 pods bound (300 created, 120 bound, 4 completed), 12.5 s elapsed, "
                    "ETA 18 s")
    assert bench_async_wait.progress_line("", {"phase": "nodes", "count": 3, "total": 5, "elapsed_s": 1}) == (
        "nodes 3/5 fake nodes Ready, 1 s elapsed")
    assert bench_async_wait.progress_line("k: ", {"phase": "finished", "outcome": "failed", "elapsed_s": 9}) == (
        "k: failed after 9 s")
    assert bench_async_wait.progress_line("", {"phase": "starting"}) is None
    assert bench_async_wait.progress_line("", {}) is None


def test_a_job_is_done_once_its_results_file_holds_the_modules_result():
    # As Ansible's async wrapper writes it: first that the job started, at the end the module's own result.
    assert not bench_async_wait.job_finished('{"started": 1, "finished": 0, "ansible_job_id": "j1"}')
    assert bench_async_wait.job_finished('{"changed": true, "summary": {}}')
    assert bench_async_wait.job_finished('{"started": 1, "finished": 1, "failed": 1, "msg": "could not start"}')
    # Half written, or not JSON: not yet.
    assert not bench_async_wait.job_finished('{"changed": tr')
    assert not bench_async_wait.job_finished("")
    assert bench_async_wait.read_local("/nonexistent/job") is None
