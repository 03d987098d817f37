"""The load test's open loop (module_utils/loadtest/load.py, open_loop): jobs handed to the pool at their arrival,
and a stop midway that cancels what has not started and keeps what was created."""
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import load as sched_load


class Stop(Exception):
    pass


def test_every_job_is_created_and_noted_in_order():
    jobs = [{"name": "j%d" % i, "arrival_s": 0.0} for i in range(20)]
    notes, outcomes = [], []
    with ThreadPoolExecutor(max_workers=4) as pool:
        sched_load.open_loop(pool, jobs, lambda job: (job, "no" if job["name"] == "j3" else None),
                             lambda done, failed: notes.append((done, failed)), outcomes)
    assert [job["name"] for job, _ in outcomes] == ["j%d" % i for i in range(20)]
    assert notes[-1] == (20, 1)


def test_a_stop_midway_cancels_the_queue_and_keeps_what_was_created():
    """A burst of 2,000 jobs on 2 workers, each creation 10 ms: stopped after 5 have finished, the loop returns
    within the two creations in flight, not the 20 s the queue would take, and names exactly the jobs created."""
    jobs = [{"name": "j%d" % i, "arrival_s": 0.0} for i in range(2000)]
    created, lock = [], threading.Lock()

    def create(job):
        time.sleep(0.01)
        with lock:
            created.append(job["name"])
        return job, None

    def note(done, _failed):
        if done == 5:
            raise Stop()

    outcomes = []
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=2) as pool, pytest.raises(Stop):
        sched_load.open_loop(pool, jobs, create, note, outcomes)
    elapsed = time.monotonic() - started
    assert elapsed < 2
    # The 5 noted, those in flight, and those the 2 workers finished while the loop waited for the CPU (a loaded
    # host, CI's other session): never the queue's 2,000.
    assert 5 <= len(outcomes) <= 5 + 2 * (2 + int(elapsed / 0.01))
    assert sorted(job["name"] for job, _ in outcomes) == sorted(created)
