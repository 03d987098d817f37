#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: run one scheduler load test against a cluster."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: sched_loadtest
short_description: Load a Kubernetes cluster with batch jobs and measure how fast its scheduler binds the pods
description:
  - Creates fake kwok nodes and a number of batch jobs for the chosen scheduler, waits until every pod is
    bound (or has completed), and times every pod from creation to binding.
  - With an API server audit log, times come from the audit events (server side, microseconds).
    Without one, from this client's watch; C(timing_source) in the summary says which.
  - Writes C(summary.json), C(pods.csv) and C(timeline.csv) into O(output_dir) and returns the summary.
  - A timeout while waiting still writes what was measured, with C(complete=false), and fails.
  - Runs on the host that can reach the API server; needs the Python C(kubernetes) package there.
version_added: "0.1.0"
options:
  kubeconfig:
    description: Path to the kubeconfig of the cluster.
    type: path
    required: true
  context:
    description: Context in the kubeconfig; the current context when omitted.
    type: str
  scheduler:
    description:
      - The scheduler under test; selects the workload kind.
      - C(default) plain Jobs, C(kueue) suspended Jobs in a local queue, C(volcano) vcjobs with minAvailable,
        C(yunikorn) Jobs with application and queue labels, C(coscheduling) a PodGroup (minMember = pods per job)
        and a Job whose pods name it.
    type: str
    choices: [default, kueue, volcano, yunikorn, coscheduling]
    default: default
  namespace:
    description: Namespace for the jobs. It must not exist yet; it is created and, with O(cleanup), deleted.
    type: str
    default: sched-bench
  run_label:
    description: Value of the C(sched-bench.io/run) label put on every object the test creates.
    type: str
    default: ""
  nodes:
    description: Number of fake nodes.
    type: int
    default: 100
  node_name_prefix:
    description: Fake nodes are named with this prefix and a number.
    type: str
    default: kwok-node-
  node_cpu:
    description: CPU capacity of a fake node (a Kubernetes quantity).
    type: str
    default: "32"
  node_memory:
    description: Memory capacity of a fake node.
    type: str
    default: 256Gi
  node_pods:
    description: Pod capacity of a fake node.
    type: int
    default: 110
  jobs:
    description: Number of jobs.
    type: int
    default: 1000
  pods_per_job:
    description: Pods of each job; all of a job's pods run at once.
    type: int
    default: 3
  pod_cpu:
    description: CPU request (and limit) of each pod.
    type: str
    default: "1"
  pod_memory:
    description: Memory request (and limit) of each pod.
    type: str
    default: 200Mi
  pod_duration:
    description: Seconds a pod "runs" on its fake node before kwok marks it Succeeded.
    type: float
    default: 30
  concurrency:
    description: Parallel requests while creating nodes and jobs.
    type: int
    default: 16
  qps:
    description: Client-side rate limit for creating objects, requests per second.
    type: float
    default: 1000
  burst:
    description: Client-side burst for the rate limit.
    type: int
    default: 1000
  wait_for:
    description: Wait until every pod is C(bound) to a node, or has C(completed).
    type: str
    choices: [bound, completed]
    default: bound
  timeout:
    description: Seconds to wait for the fake nodes and then for the pods.
    type: float
    default: 600
  audit_log:
    description: Path of the API server's audit log on this host (rotated backups beside it are read too).
    type: path
  output_dir:
    description: Directory for summary.json, pods.csv and timeline.csv; created if missing.
    type: path
    required: true
  cleanup:
    description: Delete the namespace and the fake nodes afterwards.
    type: bool
    default: true
  namespace_objects:
    description:
      - Objects of API groups (such as a Kueue LocalQueue) to create in O(namespace) right after it is created,
        before the fake nodes and the jobs; their namespace is set to O(namespace).
    type: list
    elements: dict
    default: []
  progress_file:
    description:
      - While the test runs, its progress (phase, counts, elapsed, ETA) is written to this JSON file, at most once a
        second; the C(bench_async_wait) action shows it when the module runs asynchronously.
    type: path
  pid_file:
    description:
      - The module's process ID is written here while it runs (and removed when it ends), so that a teardown
        after the controller died can stop it like the cluster's processes.
    type: path
  scheduler_pid_files:
    description:
      - Pid files of the scheduler's processes. Their CPU time and peak resident memory are read from /proc
        at the start and the end of the test and reported as C(scheduler_cost) in the summary.
    type: list
    elements: path
    default: []
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Benchmark the default scheduler with 50 jobs of 3 pods
  sched_loadtest:
    kubeconfig: /home/bench/.cache/kube-sched-bench/clusters/c1/admin.kubeconfig
    scheduler: default
    nodes: 20
    jobs: 50
    audit_log: /home/bench/.cache/kube-sched-bench/clusters/c1/audit/audit.log
    output_dir: /home/bench/kube-sched-bench/results/20261129T210000Z/default
  register: bench

- name: Show the throughput
  ansible.builtin.debug:
    msg: "{{ bench.summary.throughput_pods_per_s }} pods/s"
"""

RETURN = r"""
summary:
  description: The content of summary.json.
  returned: always, except when the options are rejected
  type: dict
  sample:
    scheduler: default
    pods_created: 150
    pods_bound: 150
    makespan_s: 4.21
    throughput_pods_per_s: 35.6
    peak_throughput_pods_per_s: 52
    latency_ms: {p50: 12.1, p90: 40.2, p99: 80.3, max: 95.0, mean: 18.2}
    submit_rate_jobs_per_s: 410.2
    timing_source: audit
    complete: true
    scheduler_cost: {cpu_seconds: 3.2, peak_rss_mb: 61.5, processes: [{name: kube-scheduler, pid: 4242, cpu_seconds: 3.2, peak_rss_mb: 61.5}]}
files:
  description: Paths of the files written.
  returned: when not in check mode
  type: list
  elements: str
plan:
  description: What the test would create (check mode).
  returned: in check mode
  type: dict
"""

import csv
import io
import json
import os
import signal
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

try:
    from kubernetes import client as k8s_client
    HAS_KUBERNETES = True
    KUBERNETES_IMPORT_ERROR = None
except ImportError:
    HAS_KUBERNETES = False
    KUBERNETES_IMPORT_ERROR = traceback.format_exc()

from ansible.module_utils import sched_cost as cost
from ansible.module_utils import sched_metrics as metrics
from ansible.module_utils.sched_progress import ProgressFile
from ansible.module_utils import sched_workloads as workloads

if HAS_KUBERNETES:
    from ansible.module_utils.sched_client import (
        PodWatch, RateLimiter, api_client, create_workload, drain, error_text, is_status, read_json)

ARGUMENT_SPEC = dict(
    kubeconfig=dict(type="path", required=True),
    context=dict(type="str"),
    scheduler=dict(type="str", default="default", choices=list(workloads.SCHEDULERS)),
    namespace=dict(type="str", default="sched-bench"),
    run_label=dict(type="str", default=""),
    nodes=dict(type="int", default=100),
    node_name_prefix=dict(type="str", default="kwok-node-"),
    node_cpu=dict(type="str", default="32"),
    node_memory=dict(type="str", default="256Gi"),
    node_pods=dict(type="int", default=110),
    jobs=dict(type="int", default=1000),
    pods_per_job=dict(type="int", default=3),
    pod_cpu=dict(type="str", default="1"),
    pod_memory=dict(type="str", default="200Mi"),
    pod_duration=dict(type="float", default=30),
    concurrency=dict(type="int", default=16),
    qps=dict(type="float", default=1000),
    burst=dict(type="int", default=1000),
    wait_for=dict(type="str", default="bound", choices=list(workloads.WAIT_FOR)),
    timeout=dict(type="float", default=600),
    audit_log=dict(type="path"),
    output_dir=dict(type="path", required=True),
    cleanup=dict(type="bool", default=True),
    namespace_objects=dict(type="list", elements="dict", default=[]),
    scheduler_pid_files=dict(type="list", elements="path", default=[]),
    progress_file=dict(type="path"),
    pid_file=dict(type="path"),
)

POD_FIELDS = ["job", "pod", "node", "created", "bound", "latency_ms"]
TIMELINE_FIELDS = ["second", "created", "created_total", "bound", "bound_total"]


class LoadTestError(Exception):
    """A failure with a sentence for the user."""


class LoadTest:
    def __init__(self, params):
        self.p = params
        self.client = api_client(params["kubeconfig"], params["context"], params["concurrency"] + 2)
        self.core = k8s_client.CoreV1Api(self.client)
        self.batch = k8s_client.BatchV1Api(self.client)
        self.custom = k8s_client.CustomObjectsApi(self.client)
        self.limiter = RateLimiter(params["qps"], params["burst"])
        self.watch = None
        self.created_namespace = False
        self.created_nodes = []
        self.submit_start = None
        self.submit_end = None
        self.jobs_submitted = 0
        self.submit_errors = []
        self.started_at = ""
        self.cost_start = {}
        self.phases = {}
        self.progress = ProgressFile(params.get("progress_file"))

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
        try:
            drain(self.core.read_namespace(self.p["namespace"], _preload_content=False))
            return True
        except Exception as exc:  # noqa: BLE001
            if is_status(exc, 404):
                return False
            raise

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
        deadline = time.monotonic() + min(self.p["timeout"], 120)
        while time.monotonic() < deadline:
            try:
                drain(self.core.read_namespaced_service_account("default", name, _preload_content=False))
                return
            except Exception as exc:  # noqa: BLE001
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
                except Exception as exc:  # noqa: BLE001
                    raise LoadTestError("API %s is not served (are its CRDs applied?): %s"
                                        % (api_version, error_text(exc))) from exc
            if kind not in plurals[api_version]:
                raise LoadTestError("API %s has no namespaced kind %s" % (api_version, kind))
            body = dict(obj, metadata=dict(obj.get("metadata") or {}, namespace=namespace))
            try:
                drain(self.custom.create_namespaced_custom_object(
                    group, version, namespace, plurals[api_version][kind], body, _preload_content=False))
            except Exception as exc:  # noqa: BLE001
                raise LoadTestError("could not create %s %s in namespace %s: %s"
                                    % (kind, name, namespace, error_text(exc))) from exc

    def create_nodes(self, pool):
        names = [workloads.node_name(self.p["node_name_prefix"], i) for i in range(self.p["nodes"])]

        def create(name):
            self.limiter.acquire()
            try:
                drain(self.core.create_node(workloads.fake_node(name, self.p), _preload_content=False))
                return name, None
            except Exception as exc:  # noqa: BLE001
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
            body = read_json(self.core.list_node(
                label_selector="%s=fake-node" % workloads.ROLE_LABEL, _preload_content=False))
            ready = sum(
                1 for node in body.get("items", [])
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
    def submit_jobs(self, pool):
        namespace = self.p["namespace"]

        def create(index):
            objects = workloads.workload(index, self.p)
            self.limiter.acquire()
            try:
                create_workload(self.batch, self.custom, namespace, objects)
                return None
            except Exception as exc:  # noqa: BLE001
                return "%s: %s" % (objects[-1][1]["metadata"]["name"], error_text(exc))

        self.submit_start = time.monotonic()
        self.progress.phase("submit", total=self.p["jobs"])
        for error in pool.map(create, range(self.p["jobs"])):
            if error is None:
                self.jobs_submitted += 1
            else:
                self.submit_errors.append(error)
            self.progress.update(count=self.jobs_submitted + len(self.submit_errors),
                                 jobs_failed=len(self.submit_errors))
        self.submit_end = time.monotonic()

    def wait_pods(self, deadline):
        """Wait until every expected pod is bound or done; return None or why it stopped early."""
        expected = self.jobs_submitted * self.p["pods_per_job"]
        index = 1 if self.p["wait_for"] == "bound" else 2
        last_count, last_change = -1, time.monotonic()
        self.progress.phase("wait", total=expected)
        while time.monotonic() < deadline:
            counts = self.watch.counts()
            count = counts[index]
            self.progress.update(count=count, pods_created=counts[0], pods_bound=counts[1], pods_completed=counts[2],
                                 pods_expected=expected, wait_for=self.p["wait_for"])
            if count >= expected:
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
        created, bound, done = self.watch.counts()
        return ("timed out after %gs waiting for pods to be %s: %d created, %d bound, %d completed of %d"
                % (self.p["timeout"], self.p["wait_for"], created, bound, done, expected))

    # -- results ---------------------------------------------------------
    def measure(self):
        """Per-pod records and job creation times, from the audit log if there is one."""
        audit_log = self.p["audit_log"]
        if audit_log:
            files = metrics.audit_log_files(audit_log)
            if files:
                wanted = len(self.watch.records()) if self.watch else 0
                times = None
                # The audit backend may lag a moment behind the watch; read until it caught up.
                for _attempt in range(10):
                    times = metrics.AuditTimes(self.p["namespace"])
                    for event in metrics.read_audit_events(metrics.audit_log_files(audit_log), self.p["namespace"]):
                        times.add(event)
                    if len(times.pod_created) >= wanted and len(times.pod_bound) >= self._bound_seen():
                        break
                    time.sleep(0.5)
                return times.records(), list(times.job_created.values()), "audit"
        records = self.watch.records() if self.watch else []
        return records, [], "watch"

    def _bound_seen(self):
        return self.watch.counts()[1] if self.watch else 0

    def write_results(self, complete, reason):
        records, job_times, source = self.measure()
        window = (self.submit_end - self.submit_start) if self.submit_end and self.submit_start else None
        summary, timeline = metrics.summarize(
            records, job_times, self.p["jobs"] * self.p["pods_per_job"], window, self.jobs_submitted)
        done = self.watch.counts()[2] if self.watch else 0
        summary.update({
            "scheduler": self.p["scheduler"],
            "run_label": self.p["run_label"],
            "namespace": self.p["namespace"],
            "nodes": self.p["nodes"],
            "jobs": self.p["jobs"],
            "pods_per_job": self.p["pods_per_job"],
            "pods_completed": done,
            "wait_for": self.p["wait_for"],
            "timing_source": source,
            "complete": complete,
            "reason": reason,
            "submit_errors": self.submit_errors[:20],
            "submit_error_count": len(self.submit_errors),
            "client_qps": self.p["qps"],
            "client_burst": self.p["burst"],
            "concurrency": self.p["concurrency"],
            "started_at": self.started_at,
            "phases_s": self.phases,
            "finished_at": metrics.format_time_us(int(time.time() * 1_000_000)),
        })
        if self.p["scheduler_pid_files"]:
            summary["scheduler_cost"] = cost.cost(self.cost_start, cost.sample(self.p["scheduler_pid_files"]))
        return write_files(self.p["output_dir"], summary, metrics.pod_rows(records), timeline), summary

    # -- clean-up --------------------------------------------------------
    def cleanup(self, wait_s=120):
        """Delete what this test created; return a sentence about anything left."""
        problems = []
        if self.created_namespace:
            try:
                drain(self.core.delete_namespace(self.p["namespace"], propagation_policy="Background",
                                                 _preload_content=False))
            except Exception as exc:  # noqa: BLE001
                if not is_status(exc, 404):
                    problems.append("namespace %s: %s" % (self.p["namespace"], error_text(exc)))
        for name in self.created_nodes:
            try:
                drain(self.core.delete_node(name, _preload_content=False))
            except Exception as exc:  # noqa: BLE001
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
        self.started_at = metrics.format_time_us(int(time.time() * 1_000_000))
        deadline = time.monotonic() + self.p["timeout"]
        self.cost_start = cost.sample(self.p["scheduler_pid_files"])
        phase = time.monotonic()
        self.create_namespace()
        self.create_namespace_objects()
        with ThreadPoolExecutor(max_workers=self.p["concurrency"]) as pool:
            self.progress.phase("nodes", total=self.p["nodes"])
            self.create_nodes(pool)
            self.wait_nodes_ready(deadline)
            self.watch = PodWatch(self.core, self.p["namespace"])
            self.watch.start()
            phase = self._phase("setup", phase)
            self.submit_jobs(pool)
            phase = self._phase("submit", phase)
        reason = None
        if self.submit_errors:
            reason = "%d of %d jobs could not be created, first: %s" % (
                len(self.submit_errors), self.p["jobs"], self.submit_errors[0])
        wait_reason = self.wait_pods(time.monotonic() + self.p["timeout"])
        self._phase("wait", phase)
        reason = reason or wait_reason
        self.watch.stop()
        files, summary = self.write_results(reason is None, reason)
        return files, summary


def _csv_text(fields, rows):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def write_files(output_dir, summary, pod_rows, timeline):
    """Write the three result files; each appears whole or not at all."""
    os.makedirs(output_dir, exist_ok=True)
    contents = {
        "pods.csv": _csv_text(POD_FIELDS, pod_rows),
        "timeline.csv": _csv_text(TIMELINE_FIELDS, timeline),
        "summary.json": json.dumps(summary, indent=2, sort_keys=True) + "\n",
    }
    paths = []
    for name, text in contents.items():
        path = os.path.join(output_dir, name)
        handle, tmp = tempfile.mkstemp(prefix="." + name, dir=output_dir)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        paths.append(path)
    return paths


def write_pid_file(path):
    if path:
        tmp = "%s.%d.tmp" % (path, os.getpid())
        with open(tmp, "w", encoding="ascii") as handle:
            handle.write("%d\n" % os.getpid())
        os.replace(tmp, path)


def remove_pid_file(path):
    if path:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    problem = workloads.validate(params)
    if problem:
        module.fail_json(msg=problem)
    if not os.path.isfile(params["kubeconfig"]) or not os.access(params["kubeconfig"], os.R_OK):
        module.fail_json(msg="kubeconfig %s does not exist or is not readable" % params["kubeconfig"])
    if not HAS_KUBERNETES:
        module.fail_json(msg=missing_required_lib("kubernetes"), exception=KUBERNETES_IMPORT_ERROR)

    note = workloads.capacity_note(params)
    try:
        test = LoadTest(params)
    except Exception as exc:  # noqa: BLE001 - a kubeconfig the client cannot use
        module.fail_json(msg="kubeconfig %s cannot be used: %s" % (params["kubeconfig"], exc))
    try:
        version = test.probe()
        if module.check_mode:
            module.exit_json(changed=False, plan={
                "server_version": version,
                "namespace": params["namespace"],
                "namespace_exists": test.namespace_exists(),
                "fake_nodes": params["nodes"],
                "jobs": params["jobs"],
                "pods": params["jobs"] * params["pods_per_job"],
                "scheduler": params["scheduler"],
                "output_dir": params["output_dir"],
                "note": note,
            })
    except LoadTestError as exc:
        module.fail_json(msg=str(exc))

    files, summary, error = [], None, None

    def interrupted(signum, _frame):
        raise LoadTestError("interrupted by signal %d" % signum)

    # Stopped from outside (an interrupted wait for the asynchronous task, a teardown): keep what was measured.
    signal.signal(signal.SIGTERM, interrupted)
    write_pid_file(params.get("pid_file"))
    try:
        files, summary = test.run()
    except LoadTestError as exc:
        error = str(exc)
    except Exception as exc:  # noqa: BLE001 - the cluster failed under us: keep what was measured
        error = "load test failed: %s" % error_text(exc)
    if error and test.watch is not None:
        test.watch.stop()
        try:
            files, summary = test.write_results(False, error)
        except Exception as exc:  # noqa: BLE001
            error += "; partial results could not be written either: %s" % exc
    cleanup_problem = None
    if params["cleanup"]:
        try:
            cleanup_problem = test.cleanup()
        except Exception as exc:  # noqa: BLE001
            cleanup_problem = error_text(exc)

    remove_pid_file(params.get("pid_file"))
    result = dict(changed=True, summary=summary, files=files, note=note, cleanup_problem=cleanup_problem)
    test.progress.finish("failed" if error or (summary and not summary["complete"]) else "complete")
    if error:
        module.fail_json(msg=error + (" (partial results in %s)" % params["output_dir"] if files else ""), **result)
    if summary and not summary["complete"]:
        module.fail_json(msg=summary["reason"] + " (partial results in %s)" % params["output_dir"], **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
