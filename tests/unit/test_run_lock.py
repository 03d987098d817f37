"""The host's run lock (library/bench_run_lock.py, action_plugins/bench_run_lock.py)."""
import importlib.util
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load(name, *path):
    """The module and the action plugin share a name: load each from its file."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, *path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lock = _load("bench_run_lock_module", "library", "bench_run_lock.py")
plugin = _load("bench_run_lock_action", "action_plugins", "bench_run_lock.py")


def holder(run_id, pid=1):
    return {"run_id": run_id, "controller": "ctl", "pid": pid, "started": "2026-11-30T00:00:00Z"}


def test_the_first_run_gets_the_lock_and_the_second_is_told_who_holds_it(tmp_path):
    path = str(tmp_path / "ws" / "run.lock")
    first = lock.acquire(path, holder("a"), "")
    assert first["acquired"] and first["changed"]
    assert json.load(open(path, encoding="utf-8"))["run_id"] == "a"
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    second = lock.acquire(path, holder("b"), "")
    assert not second["acquired"] and second["holder"]["run_id"] == "a"
    # The same run again (a re-entered play) keeps it.
    assert lock.acquire(path, holder("a"), "")["acquired"]


def test_only_the_named_dead_holder_is_taken_over(tmp_path):
    path = str(tmp_path / "run.lock")
    lock.acquire(path, holder("a"), "")
    assert not lock.acquire(path, holder("b"), "other")["acquired"]
    taken = lock.acquire(path, holder("b"), "a")
    assert taken["acquired"] and taken["taken_over"]["run_id"] == "a"
    assert json.load(open(path, encoding="utf-8"))["run_id"] == "b"


def test_release_removes_only_the_runs_own_lock_unless_forced(tmp_path):
    path = str(tmp_path / "run.lock")
    lock.acquire(path, holder("a"), "")
    assert not lock.release(path, holder("b"), False)["changed"]
    assert os.path.exists(path)
    assert lock.release(path, holder("a"), False)["changed"]
    assert not os.path.exists(path)
    lock.acquire(path, holder("a"), "")
    assert lock.release(path, holder("teardown"), True)["holder"]["run_id"] == "a"
    assert not os.path.exists(path)


def test_an_unreadable_lock_still_blocks(tmp_path):
    path = tmp_path / "run.lock"
    path.write_text("not json")
    result = lock.acquire(str(path), holder("a"), "")
    assert not result["acquired"] and result["holder"] == {"run_id": "?"}


def test_a_dead_or_foreign_pid_is_not_an_ansible_run():
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    assert not plugin.ansible_runs(done.pid)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert not plugin.ansible_runs(sleeper.pid)   # alive, but not ansible: a reused pid
    finally:
        sleeper.kill()
        sleeper.wait()
    assert not plugin.ansible_runs("x")
    assert "run a from controller ctl (ansible-playbook pid 1" in plugin.describe(holder("a"))


def test_the_leftovers_are_the_cluster_directories_there_when_the_lock_was_taken(tmp_path):
    clusters = tmp_path / "clusters"
    assert lock.leftovers(str(clusters)) == []
    (clusters / "bench-kwok").mkdir(parents=True)
    (clusters / "bench").mkdir()
    (clusters / "notes.txt").write_text("not a cluster")
    assert lock.leftovers(str(clusters)) == ["bench", "bench-kwok"]
