# -*- coding: utf-8 -*-
"""The load test: fake nodes, the workload's jobs, a watch on their pods, and the result files.

library/sched_loadtest.py is its Ansible interface. Needs the Python kubernetes client.
"""
from __future__ import annotations

import concurrent.futures
import csv
import io
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import queue_quota
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import capacity, hold, submitters, workloads
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import (
    PodWatch,
    RateLimiter,
    api_client,
    apis,
    create_workload,
    drain,
    error_text,
    is_status,
    list_pages,
    namespace_exists,
    read_json,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.progress import ProgressFile
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import audit as metrics
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import cost, host_load
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import files as result_files
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import summary as result_summary
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import objects as scenario_objects
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import records as scenario_records
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.spec import burst, expand
from kubernetes import client as k8s_client

# How long the analysis waits for the audit log to hold what the watch saw (bench_host_guard.LOADTEST_GRACE_S is
# what an interrupted load test has to write its results).
AUDIT_CATCH_UP_S = 5.0
TIMELINE_FIELDS = ["second", "created", "created_total", "bound", "bound_total", "backlog"]


class LoadTestError(Exception):
    """A failure with a sentence for the user."""


class LoadTest:
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
        self.jobs_submitted = 0
        self.submit_errors = []
        self.timed_out = False  # the wait for the pods ran out (wait_pods)
        self.scenario_timed_out = False  # ... and that is a finding of the scenario, not a failure (run)
        self.started_at = ""
        self.cost_start = {}
        self.load_start = None
        self.phases = {}
        self.progress = ProgressFile(params.get("progress_file"))
        self.backlog = self.workload["arrival"] == hold.BACKLOG
        self.hold = None
        self.submitters = None  # sched_submitters.Submitters with workload.submit_processes > 1
        self.release_us = None  # this client's clock at the release (the audit log's marker is the timing source)

    def jobs_total(self):
        return len(self.jobs)

    def pods_total(self, jobs=None):
        """Pods of all the jobs, or of the jobs submitted with ``jobs="submitted"``."""
        return sum(job["pods_per_job"] for job in (self.submitted if jobs == "submitted" else self.jobs))

    # -- cluster checks --------------------------------------------------
    def probe(self):
        """Check the API server answers; return its version string."""
        try:
            version = read_json(k8s_client.VersionApi(self.client).get_code(
                _preload_content=False, _request_timeout=15))
        except Exception as exc:  # noqa: BLE001 - any failure to connect is reported the same way
            raise LoadTestError("the API server in kubeconfig %s does not answer: %s"
                                % (self.p["kubeconfig"], error_text(exc))) from exc
        return version.get("gitVersion", "unknown")

    def namespace_exists(self):
        return namespace_exists(self.core, self.p["namespace"])

    # -- set-up ----------------------------------------------------------
    def create_namespace(self):
        name = self.p["namespace"]
        if self.namespace_exists():
            raise LoadTestError("namespace %s already exists: a load test needs a fresh namespace "
                                "(delete it, or set another namespace)" % name)
        labels = {workloads.ROLE_LABEL: "load"}
        if self.p["run_label"]:
            labels[workloads.RUN_LABEL] = self.p["run_label"]
        drain(self.core.create_namespace({"metadata": {"name": name, "labels": labels}}, _preload_content=False))
        self.created_namespace = True
        # Pods are only admitted once the namespace's default service account exists.
        deadline = time.monotonic() + min(self.workload["timeout"], 120)
        while time.monotonic() < deadline:
            try:
                drain(self.core.read_namespaced_service_account("default", name, _preload_content=False))
                return
            except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                if not is_status(exc, 404):
                    raise
            time.sleep(0.2)
        raise LoadTestError("the default service account of namespace %s did not appear: "
                            "is kube-controller-manager running?" % name)

    def create_namespace_objects(self):
        """Create the objects of O(namespace_objects) in the test's namespace."""
        namespace = self.p["namespace"]
        plurals = {}
        for obj in self.p["namespace_objects"]:
            api_version, kind = obj.get("apiVersion", ""), obj.get("kind", "")
            name = (obj.get("metadata") or {}).get("name", "?")
            if api_version.count("/") != 1:
                raise LoadTestError("namespace object %s %s: only objects of API groups (apiVersion group/version) "
                                    "can be created, got apiVersion %r" % (kind, name, api_version))
            group, version = api_version.split("/")
            if api_version not in plurals:
                try:
                    plurals[api_version] = workloads.plurals(read_json(self.custom.get_api_resources(
                        group, version, _preload_content=False, _request_timeout=30)))
                except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                    raise LoadTestError("API %s is not served (are its CRDs applied?): %s"
                                        % (api_version, error_text(exc))) from exc
            if kind not in plurals[api_version]:
                raise LoadTestError("API %s has no namespaced kind %s" % (api_version, kind))
            body = dict(obj, metadata=dict(obj.get("metadata") or {}, namespace=namespace))
            try:
                drain(self.custom.create_namespaced_custom_object(
                    group, version, namespace, plurals[api_version][kind], body, _preload_content=False))
            except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                raise LoadTestError("could not create %s %s in namespace %s: %s"
                                    % (kind, name, namespace, error_text(exc))) from exc

    def create_nodes(self, pool):
        names = [workloads.node_name(self.p["node_name_prefix"], i) for i in range(self.workload["nodes"])]

        def create(name):
            self.limiter.acquire()
            try:
                drain(self.core.create_node(workloads.fake_node(name, self.target, self.workload), _preload_content=False))
                return name, None
            except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                return name, exc

        for name, exc in pool.map(create, names):
            if exc is None:
                self.created_nodes.append(name)
            elif is_status(exc, 409):
                raise LoadTestError("node %s already exists: remove fake nodes of an earlier run first "
                                    "(label %s=fake-node)" % (name, workloads.ROLE_LABEL))
            else:
                raise LoadTestError("could not create fake node %s: %s" % (name, error_text(exc)))

    def wait_nodes_ready(self, deadline):
        wanted = set(self.created_nodes)
        ready = 0
        while time.monotonic() < deadline:
            nodes = list_pages(self.core.list_node, label_selector="%s=fake-node" % workloads.ROLE_LABEL)
            next(nodes)
            ready = sum(
                1 for node in nodes
                if node["metadata"]["name"] in wanted and any(
                    c.get("type") == "Ready" and c.get("status") == "True"
                    for c in (node.get("status") or {}).get("conditions") or []))
            self.progress.update(count=ready)
            if ready == len(wanted):
                return
            time.sleep(0.25)
        raise LoadTestError("only %d of %d fake nodes became Ready within the timeout: is kwok running "
                            "and managing nodes annotated %s=fake?" % (ready, len(wanted),
                                                                      workloads.KWOK_NODE_ANNOTATION))

    # -- load ------------------------------------------------------------
    def create_scenario_objects(self, deadline):
        """The scenario's cluster objects (sched_workloads.cluster_objects: PriorityClasses, queues), before its jobs."""
        capability = queue_quota(self.workload["queue_quota"], self.workload)
        objects = workloads.cluster_objects(self.scenario, self.jobs, self.target, capability)
        try:
            self.cluster_created = scenario_objects.create(self.custom, objects, self.limiter.acquire)
        except RuntimeError as exc:
            self.cluster_created = getattr(exc, "created", [])
            raise LoadTestError(str(exc)) from exc
        problem = scenario_objects.wait_open(self.custom, self.cluster_created, deadline)
        if problem:
            raise LoadTestError(problem)

    def submit_jobs(self, pool):
        """Open loop: each job is handed to the pool at its arrival offset from now, whatever the earlier ones; with
        several load generator processes, each creates its deal of the jobs from the same start."""
        self.submit_start = time.monotonic()
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

    def wait_pods(self, deadline):
        """Wait until every expected pod is bound or done; return None or why it stopped early."""
        expected = self.pods_total("submitted")
        # A job is bound when it holds all its pods: a preempted pod counts through its replacement.
        needs = {job["name"]: job["pods_per_job"] for job in self.submitted}
        last_count, last_change = -1, time.monotonic()
        self.progress.phase("wait", total=expected)
        while time.monotonic() < deadline:
            counts = self.watch.counts()
            count = counts.bound if self.workload["wait_for"] == "bound" else counts.completed
            self.progress.update(count=count, pods_created=counts.created, pods_bound=counts.bound,
                                 pods_completed=counts.completed, pods_expected=expected,
                                 wait_for=self.workload["wait_for"])
            if count >= expected and (self.workload["wait_for"] != "bound" or self.watch.jobs_held(needs) == len(needs)):
                return None
            if not self.watch.is_alive():
                return "lost the watch on pods: %s" % (self.watch.error or "it stopped")
            if count != last_count:
                last_count, last_change = count, time.monotonic()
            elif time.monotonic() - last_change > 2:
                # No progress seen for a while: list once, in case the watch lags behind.
                try:
                    self.watch.resync()
                except Exception:  # noqa: BLE001 - the watch itself reports lasting trouble
                    pass
                last_change = time.monotonic()
            time.sleep(0.1)
        counts = self.watch.counts()
        self.timed_out = True
        return ("timed out after %gs waiting for pods to be %s: %d created, %d bound, %d completed of %d"
                % (self.workload["timeout"], self.workload["wait_for"], counts.created, counts.bound, counts.completed, expected))

    def hold_scheduler(self, deadline):
        """Backlog mode: hold the scheduler before the first job is submitted."""
        self.hold = hold.Hold(self.p["scheduler"], self.p["scheduler_pid_files"], self.custom)
        try:
            self.hold.engage(deadline)
        except hold.HoldError as exc:
            raise LoadTestError(str(exc)) from exc
        except Exception as exc:  # noqa: BLE001 - the client failing under it: said in one sentence
            raise LoadTestError("cannot hold %s: %s" % (self.p["scheduler"], error_text(exc))) from exc

    def wait_backlog(self, deadline):
        """Backlog mode: wait until the held workload exists whole (every pod of the submitted jobs, or one object
        per job where the pods appear only after the release: the descriptor's hold.backlog); None or why not."""
        kind = hold.backlog_resource(self.p["scheduler"], self.workload["pod_creation"])
        wanted = len(self.submitted) if kind else self.pods_total("submitted")
        what = kind[2] if kind else "pods"
        self.progress.phase("backlog", total=wanted)
        count = 0
        while time.monotonic() < deadline:
            if kind:
                objects = list_pages(self.custom.list_namespaced_custom_object, kind[0], kind[1], self.p["namespace"],
                                     kind[2])
                next(objects)
                count = sum(1 for _ in objects)
            else:
                count = self.watch.counts().created
            self.progress.update(count=count)
            if count >= wanted:
                return None
            time.sleep(0.25)
        self.timed_out = True
        return ("timed out after %gs waiting for the held backlog: %d of %d %s exist"
                % (self.workload["timeout"], count, wanted, what))

    def release(self):
        """Backlog mode: mark the release (the marker's creation is its time in the audit log), then end the hold."""
        drain(self.core.create_namespaced_config_map(self.p["namespace"], {
            "metadata": {"name": hold.RELEASE_MARKER, "labels": {workloads.ROLE_LABEL: "release"}}},
            _preload_content=False))
        self.release_us = int(time.time() * 1_000_000)
        problems = self.hold.release()
        if problems:
            raise LoadTestError("could not release the held scheduler: %s" % "; ".join(problems))

    # -- results ---------------------------------------------------------
    def measure(self):
        """Per-pod records, job creation and admission times (None: no admission step, or no audit log), the
        timing source, from the audit log if there is one, and the release of a held backlog (None: open loop)."""
        audit_log = self.p["audit_log"]
        if audit_log:
            files = metrics.audit_log_files(audit_log)
            if files:
                wanted = len(self.watch.records()) if self.watch else 0
                times = None
                # The audit backend may lag a moment behind the watch; read until it caught up, for a few seconds
                # at most: an interrupted run has its host guard's grace to write what it measured.
                until = time.monotonic() + AUDIT_CATCH_UP_S
                while True:
                    times = metrics.AuditTimes(self.p["namespace"])
                    for event in metrics.read_audit_events(metrics.audit_log_files(audit_log), self.p["namespace"]):
                        times.add(event)
                    caught_up = len(times.pod_created) >= wanted and len(times.pod_bound) >= self._bound_seen()
                    if caught_up or time.monotonic() > until:
                        break
                    time.sleep(0.5)
                admitted = times.job_admitted if self.p["scheduler"] in capacity.ADMITTING_SCHEDULERS else None
                # The audit log has no pod's completion (kwok's status updates are logged without content).
                done = self.watch.completions() if self.watch else {}
                records = [dict(record, completed_us=done.get(record["pod"])) for record in times.records()]
                return records, times.job_created, admitted, "audit", times.released_us or self.release_us
        records = self.watch.records() if self.watch else []
        return records, {}, None, "watch", self.release_us

    def _bound_seen(self):
        return self.watch.counts().bound if self.watch else 0

    def host_load_sample(self):
        """The host's CPU counters and processes now, the benchmark's own named by the pid files of O(own_pid_dir)
        and O(scheduler_pid_files), O(own_pids) and this process; None when /proc cannot be read."""
        roots = host_load.pids_of([self.p["own_pid_dir"]] if self.p.get("own_pid_dir") else [],
                                  self.p["scheduler_pid_files"])
        try:
            return host_load.sample(roots + list(self.p.get("own_pids") or []) + [os.getpid()])
        except (OSError, ValueError, IndexError):
            return None

    def write_results(self, complete, reason):
        # Before the analysis, which is the load test's own work after the load.
        load_end = self.host_load_sample() if self.load_start else None
        analysis_start = time.monotonic()
        records, job_times, job_admitted, source, release_us = self.measure()
        backlog = None
        if release_us is not None:
            records, job_times, job_admitted, backlog = metrics.from_release(records, job_times, job_admitted,
                                                                             release_us)
        window = (self.submit_end - self.submit_start) if self.submit_end and self.submit_start else None
        self.phases["analysis"] = round(time.monotonic() - analysis_start, 3)
        run = {"scheduler": self.p["scheduler"], "run_label": self.p["run_label"], "namespace": self.p["namespace"],
               "scenario": self.scenario, "workload": self.workload, "jobs": self.jobs,
               "ceiling_pods_per_s": self.p.get("ceiling_pods_per_s"),
               "binding_ceiling_pods_per_s": self.p.get("binding_ceiling_pods_per_s")}
        measured = {"records": records, "job_created": job_times, "job_admitted": job_admitted, "source": source,
                    "backlog": backlog}
        submission = {"submitted": self.submitted, "window_s": window, "errors": self.submit_errors,
                      "pods_expected": self.pods_total()}
        outcome = {
            "complete": complete, "reason": reason, "timed_out": self.timed_out,
            "pods_completed": self.watch.counts().completed if self.watch else 0,
            "started_at": self.started_at, "phases_s": self.phases,
            "finished_at": metrics.format_time_us(int(time.time() * 1_000_000)),
            "scheduler_cost": (cost.cost(self.cost_start, cost.sample(self.p["scheduler_pid_files"]))
                               if self.p["scheduler_pid_files"] else None),
            "audit_log_bytes": metrics.files_size(metrics.audit_log_files(self.p["audit_log"])
                                                  if self.p["audit_log"] else []),
            "loadtest_cost": None,
            "host_load": (host_load.summarize(self.load_start, load_end, self.p.get("busy_threshold"))
                          if load_end else None),
        }
        summary, timeline, jobs, pods = result_summary.build(run, measured, submission, outcome)
        pod_rows = scenario_records.scenario_pod_rows(records, jobs)
        more = {"jobs.csv": _csv_text(scenario_records.JOB_FIELDS, scenario_records.job_rows(jobs, pods)),
                "scenario.json": json.dumps(self.scenario, indent=1, sort_keys=True) + "\n"}
        self.phases["analysis"] = round(time.monotonic() - analysis_start, 3)
        summary["loadtest_cost"] = cost.own_cost()
        return (write_files(self.p["output_dir"], summary, _csv_text(scenario_records.SCENARIO_POD_FIELDS, pod_rows),
                            timeline, more), summary)

    # -- clean-up --------------------------------------------------------
    def cleanup(self, wait_s=120):
        """Delete what this test created; return a sentence about anything left."""
        problems = scenario_objects.delete(self.custom, self.cluster_created)
        if self.created_namespace:
            try:
                drain(self.core.delete_namespace(self.p["namespace"], propagation_policy="Background",
                                                 _preload_content=False))
            except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                if not is_status(exc, 404):
                    problems.append("namespace %s: %s" % (self.p["namespace"], error_text(exc)))
        for name in self.created_nodes:
            try:
                drain(self.core.delete_node(name, _preload_content=False))
            except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
                if not is_status(exc, 404):
                    problems.append("node %s: %s" % (name, error_text(exc)))
        if self.created_namespace and not problems:
            deadline = time.monotonic() + wait_s
            while time.monotonic() < deadline and self.namespace_exists():
                time.sleep(0.5)
            if self.namespace_exists():
                problems.append("namespace %s still terminating after %ds" % (self.p["namespace"], wait_s))
        return "; ".join(problems) or None

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
        self.cost_start = cost.sample(self.p["scheduler_pid_files"])
        self.load_start = self.host_load_sample()
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


def _csv_text(fields, rows):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def write_files(output_dir, summary, pods_csv, timeline, more=None):
    """Write the result files (summary.json, pods.csv, timeline.csv and ``more``: name -> text), pods.csv and jobs.csv
    compressed (bench_result_files); each appears whole or not at all, summary.json last."""
    os.makedirs(output_dir, exist_ok=True)
    contents = dict(more or {})
    contents.update({
        "pods.csv": pods_csv,
        "timeline.csv": _csv_text(TIMELINE_FIELDS, timeline),
        "summary.json": json.dumps(summary, indent=2, sort_keys=True) + "\n",
    })
    paths = []
    for name, text in contents.items():
        path = os.path.join(output_dir, result_files.stored_name(name))
        write_atomically(path, result_files.encode(name, text))
        paths.append(path)
    return paths
