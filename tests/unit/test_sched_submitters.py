"""workload.submit_processes (issue 31): the jobs dealt to several load generator processes, which create them from
one start time, report every job they handed to the API server (also when stopped midway) and leave no process
behind. Real forked processes; the creation is a function of the test, not an API server."""
import functools
import os
import subprocess
import sys
import threading
import time

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import submitters as sub
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.load import open_loop


def in_a_fresh_interpreter(test):
    """The processes are forked only from a process with no other thread (OpenSSL 3 locks), and the test session
    may run some (make test runs the molecule scenarios on threads beside the unit tests): the test runs alone in a
    new Python process, which loads tests/conftest.py and this file by their paths (another conftest may come first on
    the session's sys.path), and its failure is reported here."""
    @functools.wraps(test)
    def run_alone():
        if os.environ.get("SUBMITTERS_TEST") == test.__name__:
            return test()
        done = subprocess.run([sys.executable, "-c", FRESH_RUN, CONFTEST, __file__, test.__name__],
                              env=dict(os.environ, SUBMITTERS_TEST=test.__name__),
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr[-4000:]
    return run_alone


CONFTEST = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conftest.py")
FRESH_RUN = """
import importlib.util, runpy, sys
runpy.run_path(sys.argv[1])
spec = importlib.util.spec_from_file_location("submitters_test", sys.argv[2])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
getattr(module, sys.argv[3])()
"""


def jobs(count, every_s=0.0):
    return [{"name": "job-%03d" % index, "index": index, "arrival_s": index * every_s} for index in range(count)]


def creator(fail=(), die=(), pause_s=0.0):
    def make_create(index):
        def create(job):
            if job["name"] in die:
                os._exit(3)
            time.sleep(pause_s)
            return job, ("%s: refused" % job["name"] if job["name"] in fail else None)
        return create
    return make_create


def children_left(submitters):
    left = []
    for pid, _ in submitters.children:
        try:
            os.kill(pid, 0)
            left.append(pid)
        except ProcessLookupError:
            pass
    return left


def run(workload, processes, make_create, stop_after_s=None):
    submitters = sub.Submitters(workload, processes, make_create, lambda index: 2, open_loop)
    pids = [pid for pid, _ in submitters.children]
    seen = []
    try:
        submitters.start(time.monotonic())
        if stop_after_s is None:
            submitters.wait(lambda done, failed: seen.append((done, failed)))
        else:
            submitters.wait(lambda done, failed: seen.append((done, failed)), stop_after_s)
            submitters.stop()
        return submitters.outcomes(), submitters.failures, seen
    finally:
        submitters.close()
        for pid in pids:
            with pytest.raises(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)


@pytest.mark.parametrize(("value", "parts", "shares"), [(16, 2, [8, 8]), (16, 3, [6, 5, 5]), (1, 2, [1, 1]),
                                                       (1000, 4, [250] * 4)])
def test_each_process_gets_a_near_equal_share_of_at_least_one(value, parts, shares):
    assert [sub.share(value, parts, index) for index in range(parts)] == shares


def test_jobs_are_dealt_in_turn_so_each_process_keeps_the_arrival_order():
    dealt = sub.deal(jobs(7), 3)
    assert [[job["index"] for job in part] for part in dealt] == [[0, 3, 6], [1, 4], [2, 5]]


@in_a_fresh_interpreter
def test_every_job_is_reported_in_the_workload_order_with_its_error():
    workload = jobs(40)
    outcomes, failures, seen = run(workload, 3, creator(fail={"job-007", "job-031"}))
    assert [job["name"] for job, _ in outcomes] == [job["name"] for job in workload]
    assert {job["name"]: error for job, error in outcomes if error} == {"job-007": "job-007: refused",
                                                                         "job-031": "job-031: refused"}
    assert failures == []
    assert seen[-1] == (40, 2)


@in_a_fresh_interpreter
def test_each_process_is_a_process_of_its_own():
    def make_create(index):
        return lambda job: (job, str(os.getpid()))
    outcomes, _, _ = run(jobs(12), 3, make_create)
    pids = {error for _, error in outcomes}
    assert len(pids) == 3 and str(os.getpid()) not in pids


@in_a_fresh_interpreter
def test_stopped_midway_each_process_reports_the_jobs_it_created_and_ends():
    # 400 jobs arriving over 4 s; stopped after 0.6 s.
    workload = jobs(400, every_s=0.01)
    started = time.monotonic()
    outcomes, failures, _ = run(workload, 2, creator(pause_s=0.005), stop_after_s=0.6)
    assert time.monotonic() - started < 3.0
    assert 20 < len(outcomes) < 300, len(outcomes)
    assert all(error is None for _, error in outcomes)
    # What each process reports is a prefix of its deal: it stopped handing out jobs, and nothing in between is lost.
    names = {job["name"] for job, _ in outcomes}
    for part in sub.deal(workload, 2):
        reported = [job["name"] in names for job in part]
        assert reported == sorted(reported, reverse=True)
    assert failures == []


@in_a_fresh_interpreter
def test_a_process_that_dies_is_named_and_the_others_still_report():
    workload = jobs(20)
    outcomes, failures, _ = run(workload, 2, creator(die={"job-001"}))
    assert len(failures) == 1 and failures[0].endswith("ended without its report"), failures
    assert {job["index"] % 2 for job, _ in outcomes} == {0}
    assert len(outcomes) == 10


@in_a_fresh_interpreter
def test_children_never_started_are_ended_by_close():
    submitters = sub.Submitters(jobs(4), 2, creator(), lambda index: 1, open_loop)
    pids = [pid for pid, _ in submitters.children]
    assert len(children_left(submitters)) == 2
    submitters.close()
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


@in_a_fresh_interpreter
def test_probe_workers_run_each_step_together_and_sum_their_calls():
    def setup(index):
        pid = os.getpid()

        def handle(command, argument):
            if command == "fail":
                raise ValueError("refused by %d" % pid)
            time.sleep(0.05 * (index + 1))
            return len(argument)
        return handle

    workers = sub.ProbeWorkers(2, setup)
    pids = [pid for pid, _ in workers.children]
    try:
        calls, seconds = workers.timed("count", [["a", "b"], ["c"]], lead_s=0.1)
        assert calls == 3 and 0.1 <= seconds < 1.0, (calls, seconds)
        # The same children serve the next round.
        assert workers.timed("count", [["a"], ["b", "c", "d"]], lead_s=0.05)[0] == 4
        with pytest.raises(RuntimeError, match=r"load generator process \d+: ValueError: refused by \d+"):
            workers.timed("fail", [[], []], lead_s=0.0)
    finally:
        workers.close()
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_no_process_is_forked_beside_another_thread():
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        with pytest.raises(RuntimeError, match="forked before any thread starts"):
            sub.Submitters(jobs(2), 2, creator(), lambda index: 1, open_loop)
        with pytest.raises(RuntimeError, match="forked before any thread starts"):
            sub.ProbeWorkers(2, lambda index: None)
    finally:
        stop.set()
        thread.join()
