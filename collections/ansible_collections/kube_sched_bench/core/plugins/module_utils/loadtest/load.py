# -*- coding: utf-8 -*-
"""The load test: fake nodes, the workload's jobs, a watch on their pods, and the result files.

library/sched_loadtest.py is its Ansible interface. Needs the Python kubernetes client. ``LoadTest`` holds the run's
state and its submission (the open loop, the generator's processes, the held backlog); its other steps are its
parts: the namespace, the fake nodes and the clean-up (fake_cluster.py, with ``LoadTestError``), the waits on the
watch of the pods (pod_wait.py), and the measuring and the result files (results.py).
"""
from __future__ import annotations

import concurrent.futures
import time
from concurrent.futures import ThreadPoolExecutor

from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import hold, measurements, submitters, workloads
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import (
    PodWatch,
    RateLimiter,
    api_client,
    apis,
    create_workload,
    drain,
    error_text,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.fake_cluster import ClusterSetUp, LoadTestError
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.observe import Observer
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.pod_wait import PodWaits
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.progress import ProgressFile
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.results import Results
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit as metrics
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import RELEASE_MARKER
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records as scenario_records
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.expansion import burst, expand


class LoadTest(ClusterSetUp, PodWaits, Results, Observer):
    """One load test from the module's parameters; ``run`` does it all and returns (files written, summary)."""

    def __init__(self, params):
        self.p = params
        # A scenario (sched_scenarios.load, or the burst of the bench_* knobs) gives the fake nodes and the jobs; the
        # other workload values stay.
        self.scenario = params.get("scenario") or burst(params["workload"])
        self.workload = dict(params["workload"], **self.scenario["cluster"])
        self.jobs = expand(self.scenario)
        self.submitted = []         # the scenario's jobs that were created
        self.cluster_created = []   # (api, name) of the scenario's cluster-scoped objects
        self.target = workloads.Target(params["scheduler"], params["namespace"], params["run_label"])
        self.client = api_client(params["kubeconfig"], params["context"], self.workload["submit_concurrency"] + 2)
        self.apis = apis(self.client)
        self.core, self.custom = self.apis.core, self.apis.custom
        self.limiter = RateLimiter(self.workload["client_qps"], self.workload["client_burst"])
        self.watch = None
        self.created_namespace = False
        self.created_nodes = []
        self.submit_start = None
        self.submit_end = None
        # The same two moments on this host's clock (us), written to scenario.json's events: the submission window.
        self.submit_start_us = None
        self.submit_end_us = None
        self.jobs_submitted = 0
        self.submit_errors = []
        self.timed_out = False  # the wait for the pods ran out (wait_pods)
        self.scenario_timed_out = False  # ... and that is a finding of the scenario, not a failure (run)
        self.started_at = ""
        self.looks = {}  # each measurement's looks around the load test: name -> {moment: what it took}
        self.observed = {}  # Observer's scrapes and samples around the load
        self.phases = {}
        self.progress = ProgressFile(params.get("progress_file"))
        self.backlog = self.workload["arrival"] == hold.BACKLOG
        self.hold = None
        self.submitters = None  # sched_submitters.Submitters with workload.submit_processes > 1
        self.release_us = None  # this client's clock at the release (the audit log's marker is the timing source)
        self.held_since = None  # monotonic time the hold was engaged; held_s: how long it lasted
        self.held_s = 0.0

    def jobs_total(self):
        return len(self.jobs)

    def pods_total(self, jobs=None):
        """Pods of all the jobs, or of the jobs submitted with ``jobs="submitted"``."""
        return sum(job["pods_per_job"] for job in (self.submitted if jobs == "submitted" else self.jobs))

    # -- load ------------------------------------------------------------
    def submit_jobs(self, pool):
        """Open loop: each job is handed to the pool at its arrival offset from now, whatever the earlier ones; with
        several load generator processes, each creates its deal of the jobs from the same start."""
        self.submit_start = time.monotonic()
        self.submit_start_us = int(time.time() * 1_000_000)
        self.progress.phase("submit", total=self.jobs_total())

        def note(done, failed):
            self.progress.update(count=done, jobs_failed=failed)

        outcomes = []
        try:
            if self.submitters is None:
                open_loop(pool, self.jobs, lambda job: self.create_job(self.apis, self.limiter, job), note, outcomes)
            else:
                self.submitters.start(self.submit_start)
                try:
                    self.submitters.wait(note)
                finally:
                    if self.submitters.open:
                        self.submitters.stop()
                    outcomes = self.submitters.outcomes()
                    self.submit_errors.extend(self.submitters.failures)
                    # Reaped now, their CPU time is the load test's own (sched_host_load) from here on.
                    self.submitters.close()
        finally:
            # Also when stopped midway (SIGTERM): the jobs created so far are the run's, and are measured.
            for job, error in outcomes:
                if error is None:
                    self.jobs_submitted += 1
                    self.submitted.append(job)
                else:
                    self.submit_errors.append(error)
            self.progress.update(count=len(outcomes), jobs_failed=len(self.submit_errors))
            self.submit_end = time.monotonic()
            self.submit_end_us = int(time.time() * 1_000_000)

    def create_job(self, client_apis, limiter, job):
        """(job, None) once the job's objects are created, or (job, why not)."""
        try:
            create_workload(client_apis, self.p["namespace"], workloads.workload(job["index"], self.target,
                                                                                 self.workload, job), limiter.acquire)
            return job, None
        except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
            return job, "%s: %s" % (job["name"], error_text(exc))

    def fork_submitters(self):
        """The load generator's child processes (workload.submit_processes > 1), forked before any thread starts;
        each gets a share of the thread pool and of the client-side rate limit."""
        processes = self.workload["submit_processes"]
        if processes < 2:
            return
        concurrency, qps, burst = (self.workload[name] for name in ("submit_concurrency", "client_qps", "client_burst"))

        def make_create(index):
            client = api_client(self.p["kubeconfig"], self.p["context"], submitters.share(concurrency, processes, index))
            client.user_agent = submitters.USER_AGENT % (index + 1)
            limiter = RateLimiter(qps / processes, submitters.share(burst, processes, index))
            client_apis = apis(client)
            return lambda job: self.create_job(client_apis, limiter, job)

        self.submitters = submitters.Submitters(self.jobs, processes, make_create,
                                                lambda index: submitters.share(concurrency, processes, index),
                                                open_loop)

    # -- the held backlog ------------------------------------------------
    def hold_scheduler(self, deadline):
        """Backlog mode: hold the scheduler before the first job is submitted."""
        self.hold = hold.Hold(self.p["scheduler"], self.p["scheduler_pid_files"], self.custom)
        try:
            self.held_since = time.monotonic()
            self.hold.engage(deadline)
        except hold.HoldError as exc:
            raise LoadTestError(str(exc)) from exc
        except Exception as exc:  # noqa: BLE001 - the client failing under it: said in one sentence
            raise LoadTestError("cannot hold %s: %s" % (self.p["scheduler"], error_text(exc))) from exc

    def release(self):
        """Backlog mode: mark the release (the marker's creation is its time in the audit log), then end the hold."""
        drain(self.core.create_namespaced_config_map(self.p["namespace"], {
            "metadata": {"name": RELEASE_MARKER, "labels": {workloads.ROLE_LABEL: "release"}}},
            _preload_content=False))
        self.release_us = int(time.time() * 1_000_000)
        self.held_s = time.monotonic() - self.held_since
        problems = self.hold.release()
        if problems:
            raise LoadTestError("could not release the held scheduler: %s" % "; ".join(problems))

    # -- the whole run ---------------------------------------------------
    def _phase(self, name, since):
        """Record how long a phase of the test took (wall clock); return now."""
        now = time.monotonic()
        self.phases[name] = round(now - since, 3)
        return now

    def run(self):
        try:
            return self._run()
        finally:
            # Whatever happened (a SIGTERM's exception too): no scheduler stays held after the load test.
            if self.hold is not None:
                self.hold.release()
            if self.submitters is not None:
                self.submitters.close()

    def _run(self):
        self.started_at = metrics.format_time_us(int(time.time() * 1_000_000))
        deadline = time.monotonic() + self.workload["timeout"]
        measurements.take("begin", self, self.looks)
        phase = time.monotonic()
        self.fork_submitters()
        self.create_namespace()
        self.create_namespace_objects()
        with ThreadPoolExecutor(max_workers=self.workload["submit_concurrency"]) as pool:
            self.progress.phase("nodes", total=self.workload["nodes"])
            self.create_nodes(pool)
            self.wait_nodes_ready(deadline)
            self.create_scenario_objects(deadline)
            self.watch = PodWatch(self.core, self.p["namespace"])
            self.watch.start()
            # Before the hold: a held scheduler's process is stopped and would not answer.
            measurements.take("before_load", self, self.looks)
            if self.backlog:
                self.hold_scheduler(deadline)
            phase = self._phase("setup", phase)
            self.submit_jobs(pool)
            phase = self._phase("submit", phase)
        reason = None
        if self.submit_errors:
            reason = "%d of %d jobs could not be created, first: %s" % (
                len(self.submit_errors), self.jobs_total(), self.submit_errors[0])
        wait_reason = None
        if self.backlog:
            wait_reason = self.wait_backlog(time.monotonic() + self.workload["timeout"])
            phase = self._phase("backlog", phase)
            self.release()
        if wait_reason is None:
            wait_reason = self.wait_pods(time.monotonic() + self.workload["timeout"])
            self._phase("wait", phase)
        measurements.take("after_load", self, self.looks)
        reason = reason or wait_reason
        # What a scheduler does with a scenario is its result: jobs still waiting at the timeout are a finding.
        self.scenario_timed_out = (scenario_records.timeout_is_finding(self.scenario) and self.timed_out
                                   and not self.submit_errors)
        self.watch.stop()
        files, summary = self.write_results(reason is None, reason)
        return files, summary


def open_loop(pool, jobs, create, note, outcomes, clock=time.monotonic, sleep=time.sleep, start=None):
    """Hand each job to ``pool`` (``create(job)`` -> (job, error or None)) at its ``arrival_s`` after ``start`` (a
    ``clock()`` value, now when None), whatever the earlier ones, and wait for them all; ``outcomes`` gets each
    (job, error) in job order. ``note(done, failed)`` says how many creations have finished, and how many of them
    failed, as they do.

    Stopped by an exception (SIGTERM's, say), it cancels the jobs not yet started, waits only for the requests in
    flight and records them, so that what was created is known; a burst of 30,000 jobs queued at once would
    otherwise keep the pool busy for minutes after the stop."""
    start = clock() if start is None else start
    futures = []
    try:
        for job in jobs:
            while clock() < start + job["arrival_s"]:
                finished = [future.result() for future in futures if future.done()]
                note(len(finished), sum(1 for _, error in finished if error))
                sleep(min(1.0, max(0.0, start + job["arrival_s"] - clock())))
            futures.append(pool.submit(create, job))
        failed = 0
        for done, future in enumerate(futures, 1):
            failed += future.result()[1] is not None
            note(done, failed)
    finally:
        for future in futures:
            future.cancel()
        concurrent.futures.wait(futures)
        outcomes.extend(future.result() for future in futures if not future.cancelled())
