"""The host's guard (module_utils/host/guard.py): its rules, and the keeper and guard as real processes
on this machine (a local connection), with a stand-in ansible-playbook and a stand-in cluster process."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import guard


def test_the_guard_leaves_when_the_run_released_its_lock_whatever_the_lifeline_says():
    assert guard.verdict(False, True, 100, 20) == "leave"
    assert guard.verdict(False, False, 0, 20) == "leave"


def test_the_guard_stops_the_run_when_the_lifeline_closes_or_goes_silent():
    assert guard.verdict(True, True, 0, 20) == "stop"
    assert guard.verdict(True, False, 20.5, 20) == "stop"
    assert guard.verdict(True, False, 19.5, 20) == "watch"


def test_the_load_tests_stop_first_and_alone_then_everything_else_together():
    files = ["/w/clusters/bench/run/etcd.pid", "/w/clusters/bench/run/loadtest.pid",
             "/w/clusters/bench/run/kube-scheduler.pid", "/w/clusters/bench-kwok/run/kwok.pid"]
    assert guard.guard_waves(files) == [
        (["/w/clusters/bench/run/loadtest.pid"], guard.LOADTEST_GRACE_S),
        (["/w/clusters/bench-kwok/run/kwok.pid", "/w/clusters/bench/run/etcd.pid",
          "/w/clusters/bench/run/kube-scheduler.pid"], guard.OTHERS_GRACE_S)]
    assert guard.guard_waves(["/w/clusters/bench/run/etcd.pid"]) == [
        (["/w/clusters/bench/run/etcd.pid"], guard.OTHERS_GRACE_S)]
    assert guard.guard_waves([]) == []


def test_a_clean_up_fits_in_the_minute_the_docs_promise_after_a_lost_connection():
    assert guard.LOADTEST_GRACE_S + guard.OTHERS_GRACE_S + 5 + 20 <= 60


def test_the_lock_is_ours_only_when_it_names_our_run(tmp_path):
    lock = tmp_path / "run.lock"
    assert not guard.lock_names(str(lock), "r1")
    lock.write_text(json.dumps({"run_id": "r1"}))
    assert guard.lock_names(str(lock), "r1")
    assert not guard.lock_names(str(lock), "r2")
    lock.write_text("not json")
    assert not guard.lock_names(str(lock), "r1")


def start(tmp_path, run_id="r1"):
    """A stand-in ansible-playbook, a workspace with a lock and one running 'cluster' process, and a keeper
    whose guard runs locally. Returns (playbook, component, keeper, workspace)."""
    workspace = tmp_path / "ws"
    (workspace / "clusters" / "bench" / "run").mkdir(parents=True)
    (workspace / "run.lock").write_text(json.dumps({"run_id": run_id}))
    playbook = subprocess.Popen(["sleep", "300"])
    component = subprocess.Popen(["sleep", "300"], start_new_session=True)
    (workspace / "clusters" / "bench" / "run" / "etcd.pid").write_text("%d\n" % component.pid)
    config = dict(lock=str(workspace / "run.lock"), run_id=run_id, workspace=str(workspace), timeout_s=3.0,
                  commands=[["touch", str(workspace / "command-ran")]])
    keeper_config = dict(command=guard.guard_argv(sys.executable, config), parent=playbook.pid,
                         parent_ticks=guard.start_ticks(playbook.pid), cleanup_s=60)
    keeper = subprocess.Popen([sys.executable, guard.__file__, "keep", json.dumps(keeper_config)],
                              stdout=subprocess.PIPE, start_new_session=True)
    line = keeper.stdout.readline().decode()
    assert line.startswith(guard.READY), line
    return playbook, component, keeper, workspace


def wait_for(condition, seconds):
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.2)
    return condition()


@pytest.mark.parametrize("how", ["killed", "silent"])
def test_a_run_whose_controller_is_gone_is_stopped_and_unlocked(tmp_path, how):
    playbook, component, keeper, workspace = start(tmp_path)
    try:
        if how == "killed":
            playbook.kill()        # ansible-playbook killed: the keeper closes the lifeline
            playbook.wait()
        else:
            os.kill(keeper.pid, signal.SIGSTOP)   # no heartbeat, no end of file: a connection that went silent
        assert wait_for(lambda: component.poll() is not None, 20), "the cluster's process still runs"
        assert wait_for(lambda: not (workspace / "run.lock").exists(), 5), "the lock is still held"
        assert (workspace / "command-ran").exists()
        log = (workspace / "guard.log").read_text()
        assert ("closed the lifeline" if how == "killed" else "no heartbeat") in log, log
    finally:
        for process in (playbook, component, keeper):
            if process.poll() is None:
                process.kill()


def test_a_run_that_released_its_lock_keeps_what_it_left_running(tmp_path):
    playbook, component, keeper, workspace = start(tmp_path)
    try:
        (workspace / "run.lock").unlink()      # the run ended (a kept cluster stays up)
        assert wait_for(lambda: keeper.poll() is not None, 10), "the keeper did not end with its guard"
        playbook.kill()
        time.sleep(1)
        assert component.poll() is None
        assert "leaving" in (workspace / "guard.log").read_text()
    finally:
        for process in (playbook, component, keeper):
            if process.poll() is None:
                process.kill()
