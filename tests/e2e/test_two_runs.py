"""Two runs on one host (issue 11): a run holds the host's lock for its whole life, a second run stops at
once naming it, a lock whose run died is taken over (and that run's cluster stopped and removed); a controller
killed with SIGKILL mid-run together with the host's guard leaves processes that `make teardown` finds from their
pid files, and the next run works."""
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import guard as host_guard
from conftest import ROOT, failure_text, processes_mentioning, run_playbook, task_results
from test_faults import SLOW, start_async, wait_until_binding

SMALL = dict(bench_nodes=5, bench_jobs=10, bench_pods_per_job=1, bench_pod_duration=1, bench_timeout=180)


def lock_file(bench_vars):
    return os.path.join(bench_vars["bench_workspace"], "run.lock")


def read_lock(bench_vars):
    with open(lock_file(bench_vars), encoding="utf-8") as handle:
        return json.load(handle)


def lock_holder(bench_vars):
    """The run id in the lock, or None while there is no lock (or it is being written)."""
    try:
        return read_lock(bench_vars)["run_id"]
    except (OSError, ValueError, KeyError):
        return None


def summary(bench_vars, run_id):
    path = os.path.join(bench_vars["bench_results_dir"], run_id, "localhost", "default", "summary.json")
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def dead_pid():
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_stale_lock_is_taken_over_and_a_second_run_fails_fast_naming_the_first(tmp_path, bench_vars):
    # A lock whose run died: the first run takes it over, with a warning.
    os.makedirs(bench_vars["bench_workspace"])
    stale = {"run_id": "dead-run", "controller": socket.gethostname(), "pid": dead_pid(), "user": "someone",
             "started": "2026-11-30T01:02:03Z"}
    with open(lock_file(bench_vars), "w", encoding="utf-8") as handle:
        json.dump(stale, handle)
    # The dead run's cluster is still there, one of its processes running: the run stops it and removes it first.
    left_run_dir = os.path.join(bench_vars["bench_workspace"], "clusters", "bench", "run")
    os.makedirs(left_run_dir)
    left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", left_run_dir],
                            start_new_session=True)
    with open(os.path.join(left_run_dir, "kube-apiserver.pid"), "w", encoding="ascii") as handle:
        handle.write("%d\n" % left.pid)
    first = dict(bench_vars, **SMALL)
    thread, runner = start_async(tmp_path, first, "first")
    deadline = time.monotonic() + 600
    while lock_holder(bench_vars) in (None, "dead-run"):
        assert time.monotonic() < deadline and runner.status not in ("successful", "failed"), failure_text(runner)
        time.sleep(0.2)
    holder = read_lock(bench_vars)
    assert holder["run_id"] == first["bench_run_id"]
    assert holder["controller"] == socket.gethostname()

    second = dict(bench_vars, bench_run_id=bench_vars["bench_run_id"] + "-second", **SMALL)
    started = time.monotonic()
    runner2 = run_playbook(tmp_path, "bench.yml", second, label="second")
    took = time.monotonic() - started
    print("the second run stopped after %.1f s" % took)
    assert runner2.rc != 0
    failed = [event["event_data"] for event in runner2.events if event.get("event") == "runner_on_failed"]
    assert failed and failed[0]["task"] == "Hold the host's run lock", failure_text(runner2)
    message = failed[0]["res"]["msg"]
    for part in ("run %s" % first["bench_run_id"], "controller %s" % socket.gethostname(),
                 "pid %s" % holder["pid"], "started %s" % holder["started"], "bench_workspace"):
        assert part in message, message
    # Nothing of the second run was built or started, and its failure names the holder.
    assert task_results(runner2, "Start the load test against default") == []
    with open(os.path.join(bench_vars["bench_results_dir"], second["bench_run_id"], "localhost", "failed.json"),
              encoding="utf-8") as handle:
        assert first["bench_run_id"] in json.load(handle)["msg"]
    # The first run still holds the lock, and completes untouched.
    if runner.status not in ("successful", "failed"):
        assert read_lock(bench_vars)["run_id"] == first["bench_run_id"]
    thread.join(900)
    assert runner.rc == 0, failure_text(runner)
    done = summary(bench_vars, first["bench_run_id"])
    assert done["complete"] is True and done["pods_bound"] == SMALL["bench_jobs"], done
    output = runner.stdout.read()
    assert "took over the stale run lock" in output and "run dead-run" in output, output[-3000:]
    assert not os.path.exists(lock_file(bench_vars))
    assert left.wait(5) < 0   # stopped by a signal, before its 600 s
    assert processes_mentioning(bench_vars["bench_workspace"]) == []


def process_runs(pid):
    try:
        with open("/proc/%d/stat" % pid, encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_teardown_after_the_controller_is_killed_stops_every_process(tmp_path, bench_vars):
    # With the host calibration on, measured before the kill: the next run reuses it.
    extravars = dict(bench_vars, bench_calibrate=True, **SLOW)
    thread, runner = start_async(tmp_path, extravars, "killed")
    wait_until_binding(runner, bench_vars["bench_workspace"])
    run_dir = os.path.join(bench_vars["bench_workspace"], "clusters", "bench", "run")
    assert os.path.exists(os.path.join(run_dir, "loadtest.pid")), os.listdir(run_dir)
    controller = [pid for pid, cmdline in processes_mentioning(str(tmp_path / "runner-killed"))
                  if "ansible-playbook" in cmdline]
    assert controller
    # The host's guard and its keeper die with the controller here (as where the connection gives the host no
    # guard): what is left is for the teardown to find. An interrupted run with its guard: test_faults.py.
    # The guard on the host runs its source under the name bench_host_guard; its keeper runs the guard's file.
    guard = [pid for pid, cmdline in processes_mentioning(bench_vars["bench_workspace"])
             if "bench_host_guard" in cmdline or host_guard.__file__ in cmdline]
    assert len(guard) == 2, guard
    for pid in guard + controller:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    thread.join(120)
    # The cluster, the scheduler and the load test run on without their controller.
    left = processes_mentioning(bench_vars["bench_workspace"])
    names = " ".join(cmdline for _pid, cmdline in left)
    assert "etcd" in names and "kube-scheduler" in names, left
    with open(os.path.join(run_dir, "loadtest.pid"), encoding="ascii") as handle:
        loadtest_pid = int(handle.read())
    assert process_runs(loadtest_pid), "the load test ended before the teardown"
    print("left running after SIGKILL: %d processes and the load test" % len(left))
    # Results of an earlier run in the same results directory stay as they are.
    earlier = os.path.join(bench_vars["bench_results_dir"], "earlier", "localhost", "default")
    os.makedirs(earlier)
    with open(os.path.join(earlier, "summary.json"), "w", encoding="utf-8") as handle:
        handle.write('{"complete": true}\n')
    down = dict(bench_vars)
    down.pop("bench_run_id")
    teardown = subprocess.run(
        # As JSON, so that a list (bench_schedulers) stays a list through make's shell.
        ["make", "teardown", "ARGS=-e " + shlex.quote(json.dumps(down))],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=600)
    assert teardown.returncode == 0, teardown.stdout[-3000:] + teardown.stderr[-2000:]
    assert "removed the run lock" in teardown.stdout + teardown.stderr, teardown.stderr[-3000:]
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
    assert not process_runs(loadtest_pid)
    assert not os.path.exists(lock_file(bench_vars))
    with open(os.path.join(earlier, "summary.json"), encoding="utf-8") as handle:
        assert handle.read() == '{"complete": true}\n'
    # The next run needs no manual step.
    # Its Jobs shaped as the killed run's (3 pods, their default duration): the calibration's basis is the same.
    again = dict(bench_vars, bench_run_id=bench_vars["bench_run_id"] + "-next", bench_calibrate=True,
                 **dict(SMALL, bench_pods_per_job=SLOW["bench_pods_per_job"], bench_pod_duration=30))
    runner = run_playbook(tmp_path, "bench.yml", again, label="next")
    assert runner.rc == 0, failure_text(runner)
    assert summary(bench_vars, again["bench_run_id"])["complete"] is True
    # The killed run's calibration, kept in the workspace: the same host, versions and load generator, minutes old.
    with open(os.path.join(bench_vars["bench_results_dir"], again["bench_run_id"], "localhost", "default", "env.json"),
              encoding="utf-8") as handle:
        calibration = json.load(handle)["calibration"]
    assert calibration["reused"] is True and calibration["measured_by_run"] == bench_vars["bench_run_id"]
    assert 0 <= calibration["age_h"] < 0.5 and calibration["api_create"]["ceiling_pods_per_s"] > 0
    assert task_results(runner, "Measure the host's API create and binding ceilings and single-core CPU speed")[0]["res"][
        "changed"] is False
    assert processes_mentioning(bench_vars["bench_workspace"]) == []
