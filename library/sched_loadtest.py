#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: run one scheduler load test against a cluster."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: sched_loadtest
short_description: Load a Kubernetes cluster with batch jobs and measure how fast its scheduler binds the pods
description:
  - Creates fake kwok nodes and a number of batch jobs for the chosen scheduler (or their pods directly), waits
    until every pod is bound (or has completed), and times every pod from creation to binding.
  - With an API server audit log, times come from the audit events (server side, microseconds).
    Without one, from this client's watch; C(timing_source) in the summary says which.
  - Writes C(summary.json), C(pods.csv.gz), C(jobs.csv.gz), C(timeline.csv) and C(scenario.json) into O(output_dir)
    and returns the summary; every figure and column is defined in docs/metrics.md.
  - A timeout while waiting still writes what was measured, with C(complete=false), and fails.
  - Runs on the host that can reach the API server; needs the Python C(kubernetes) package there.
version_added: "0.1.0"
extends_documentation_fragment: [bench_workload]
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
      - The scheduler under test, one with a descriptor in C(module_utils/schedulers/); selects the workload kind,
        its own (C(sched_workloads.workload); docs/runtimes-and-schedulers.md lists each). With
        O(workload.pod_creation=direct), the pods of those jobs instead.
    type: str
    default: default
  namespace:
    description: Namespace for the jobs. It must not exist yet; it is created and, with O(cleanup), deleted.
    type: str
    default: sched-bench
  run_label:
    description: Value of the C(sched-bench.io/run) label put on every object the test creates.
    type: str
    default: ""
  node_name_prefix:
    description: Fake nodes are named with this prefix and a number.
    type: str
    default: kwok-node-
  scenario:
    description:
      - A scenario as C(sched_scenarios.load) returns it, at the scale of C(sched_scenarios.scaled) (the bench role's
        C(bench_scenario) at C(bench_scenario_scale), loaded on the controller); omitted for the burst of O(workload),
        which is then the scenario (C(sched_scenarios.burst)), on the same path with the seed's native form.
      - Its C(cluster) gives the fake nodes (over O(workload)'s), its jobs (C(sched_scenarios.expand)) replace
        O(workload)'s jobs and pods, each submitted at its arrival offset (open loop) in the scheduler's native form
        (C(sched_workloads.workload)); the scenario's cluster objects (PriorityClasses, queues) are created before the jobs
        and deleted in the clean-up. Every run writes C(jobs.csv) and, in the summary, C(scenario), C(scenario_scale),
        C(scenario_metrics), C(unsupported) and C(findings).
      - A scenario whose jobs are not all bound when O(workload.timeout) runs out is measured as it stands; the
        summary says C(complete=false) and why, its findings say which jobs waited, and the module does not fail
        (what a scheduler does under a scenario is its result, not an error of the run).
    type: dict
  audit_log:
    description: Path of the API server's audit log on this host (rotated backups beside it are read too).
    type: path
  output_dir:
    description: >-
      Directory for the result files (summary.json, pods.csv.gz, jobs.csv.gz, timeline.csv, scenario.json); created
      if missing.
    type: path
    required: true
  cleanup:
    description: Delete the namespace and the fake nodes afterwards.
    type: bool
    default: true
  namespace_objects:
    description:
      - Objects of API groups (such as a queue of the scheduler) to create in O(namespace) right after it is created,
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
  scheduler_processes:
    description:
      - Names of the scheduler's processes (its pid files' names). Inside a kind node, where there are no pid files,
        the processes of these names are the scheduler's in C(component_cost).
    type: list
    elements: str
    default: []
  internals:
    description:
      - Look at why the scheduler is as fast as it is. Scrape O(metrics_targets) just before the first job and once
        the last pod is bound (each kept compressed beside the results as C(metrics-<process>-<before|after>.prom.gz)),
        sample /proc at both moments, and count the audit log's requests between them; the summary's C(internals),
        C(component_cost) and C(api_requests) (docs/metrics.md). false leaves the three null and scrapes nothing.
    type: bool
    default: true
  metrics_targets:
    description:
      - The metrics endpoints to scrape, one per process; a process's views come from the scheduler's descriptor
        (C(internals)) and, for the control plane, from C(metrics/internals.py).
      - A target without C(url) is read through the API server with the O(kubeconfig)'s credentials (C(path),
        /metrics by default), as the API server's own on every runtime.
    type: list
    elements: dict
    default: []
    suboptions:
      process: {description: The process (its pid file's name), type: str, required: true}
      url: {description: "The endpoint (http, or https with O(metrics_targets[].ca))", type: str}
      path: {description: "A path of the API server, for a target without C(url)", type: str}
      ca: {description: CA bundle of an https endpoint, type: path}
      client_cert: {description: Client certificate for an endpoint that requires one, type: path}
      client_key: {description: Key of C(client_cert), type: path}
      node:
        description:
          - A kind node's container; C(url) is read from inside it (C(docker exec), C(curl)), where it listens (the
            node's loopback, a Service), with a token of O(metrics_targets[].service_account) or with C(client_cert)
            (then C(ca), C(client_cert) and C(client_key) are paths inside the node).
        type: str
      service_account:
        description:
          - C(namespace/name) of the service account, allowed to read /metrics only, whose short-lived token (a
            TokenRequest of the load test's client, once per scrape) is the bearer of a C(node) target's request.
        type: str
  own_pid_dir:
    description:
      - A directory whose C(*.pid) files name the benchmark's own processes on this host (the cluster's components,
        kwok, the scheduler, the load test). While the test runs, the CPU time the host spent busy (/proc/stat) less
        what those processes, their descendants, O(scheduler_pid_files), O(own_pids) and this module spent is what
        other processes took, C(host_load) in the summary.
    type: path
  own_pids:
    description:
      - More processes of the benchmark, with their descendants (on kind, the node containers' first process).
    type: list
    elements: int
    default: []
  busy_threshold:
    description:
      - C(host_load.busy) is true when other processes used more than this percentage of the host's CPU time (all
        its CPUs) during the test; without it, C(busy) is null and the figures are still recorded.
    type: float
  ceiling_pods_per_s:
    description:
      - The host's API create ceiling in pods per second, as M(bench_calibrate) measured it on this host
        (C(calibration.api_create.ceiling_pods_per_s) of env.json). The summary's C(share_of_host_ceiling) is the
        mean throughput divided by it; without it, null.
    type: float
  binding_ceiling_pods_per_s:
    description:
      - The host's API binding ceiling in pods per second (C(calibration.api_binding.ceiling_pods_per_s) of env.json),
        how fast this host's API server took the load generator's bindings with nothing else running. The summary's
        C(share_of_binding_ceiling) is the mean throughput divided by it; without it, null.
    type: float
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Benchmark the default scheduler with 50 jobs of 3 pods
  sched_loadtest:
    kubeconfig: /home/bench/.cache/kube-sched-bench/clusters/c1/admin.kubeconfig
    scheduler: default
    workload: "{{ bench_workload | combine({'nodes': 20, 'jobs': 50}) }}"
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
    scheduler_cost:
      cpu_seconds: 3.2
      peak_rss_mb: 61.5
      processes: [{name: kube-scheduler, pid: 4242, cpu_seconds: 3.2, peak_rss_mb: 61.5}]
    loadtest_cost: {cpu_seconds: 4.1, peak_rss_mb: 88.2}
    internals:
      window_s: 4.5
      processes:
        kube-scheduler:
          attempts: {scheduled: 150}
          attempt_duration: {count: 150, sum_ms: 31.2, mean_ms: 0.208, p50_ms: 0.1, p90_ms: 0.9, p99_ms: 2.4,
                             estimate: histogram_quantile, bounds_ms: [1.0, 2.0, 4.0]}
      unread: {}
      scrape_bytes: 402311
      scrape_seconds: 0.41
    component_cost:
      window_s: 4.5
      cpus: 2
      bound_pods: 150
      host_busy_percent: 71.2
      other_percent: 1.3
      components: [{component: scheduler, commands: [kube-scheduler], cpu_seconds: 0.61, cpu_ms_per_pod: 4.067,
                    share_of_host_percent: 6.8, peak_rss_mb: 61.5, peak_rss_kb_per_pod: 419.8}]
    api_requests:
      window_s: 4.5
      requests: 1210
      per_bound_pod: 8.067
      inflight_peak: 17
      by_component: [{component: kube-scheduler/scheduler, users: ["system:kube-scheduler"], requests: 301,
                      per_bound_pod: 2.007, top: [{verb: create, resource: pods/binding, requests: 150}]}]
      by_verb_resource: [{verb: create, resource: pods/binding, requests: 150, per_bound_pod: 1.0}]
    audit_log_bytes: 2419200
    phases_s: {setup: 1.2, submit: 2.5, wait: 4.3, analysis: 0.4}
    capacity: {cpu: 3200.0, memory: 25Ti, memory_bytes: 27487790694400, pods: 11000, limited_by: cluster}
    makespan_bound: {unit: pod, at_once: 3200, waves: 1, seconds: 0.0}
    efficiency: null
    share_of_host_ceiling: 0.0235
    share_of_binding_ceiling: 0.031
    host_load:
      cpus: 2
      window_s: 8.4
      other_cpu_percent: 3.1
      own_cpu_percent: 61.0
      loadavg_before: 0.21
      loadavg_after: 1.35
      busy: false
      threshold_percent: 25.0
      top_other: [{pid: 911, name: ansible-playboo, cpu_percent: 1.2}]
      own_processes: 7
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

import os
import signal
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster import capacity
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.pid_file import remove_pid_file, write_pid_file
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import hold, workloads
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import scrape
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import knob_checks

try:
    from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.client import error_text
    from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.load import LoadTest, LoadTestError
    KUBERNETES_IMPORT_ERROR = None
except ImportError:
    KUBERNETES_IMPORT_ERROR = traceback.format_exc()

ARGUMENT_SPEC = dict(
    kubeconfig=dict(type="path", required=True),
    context=dict(type="str"),
    scheduler=dict(type="str", default="default", choices=list(knob_checks.SCHEDULERS)),
    namespace=dict(type="str", default="sched-bench"),
    run_label=dict(type="str", default=""),
    node_name_prefix=dict(type="str", default="kwok-node-"),
    workload=dict(type="dict", required=True, options=rules.workload_options()),
    scenario=dict(type="dict"),
    audit_log=dict(type="path"),
    output_dir=dict(type="path", required=True),
    cleanup=dict(type="bool", default=True),
    namespace_objects=dict(type="list", elements="dict", default=[]),
    scheduler_pid_files=dict(type="list", elements="path", default=[]),
    progress_file=dict(type="path"),
    pid_file=dict(type="path"),
    ceiling_pods_per_s=dict(type="float"),
    binding_ceiling_pods_per_s=dict(type="float"),
    scheduler_processes=dict(type="list", elements="str", default=[]),
    internals=dict(type="bool", default=True),
    metrics_targets=dict(type="list", elements="dict", default=[], options=dict(
        process=dict(type="str", required=True), url=dict(type="str"), path=dict(type="str"), ca=dict(type="path"),
        client_cert=dict(type="path"), client_key=dict(type="path"), node=dict(type="str"),
        service_account=dict(type="str"))),
    own_pid_dir=dict(type="path"),
    own_pids=dict(type="list", elements="int", default=[]),
    busy_threshold=dict(type="float"),
)


def refuse_bad_options(module, params):
    """Fail on options the load test cannot run with, before the cluster is contacted."""
    problem = workloads.validate(params)
    if not problem and params["workload"]["arrival"] == hold.BACKLOG:
        problem = hold.hold_problem(params["scheduler"], params["scheduler_pid_files"])
    if problem:
        module.fail_json(msg=problem)
    for target in params["metrics_targets"]:
        problem = scrape.target_problem(target)
        if problem:
            module.fail_json(msg="metrics_targets: %s" % problem)
    if params["busy_threshold"] is not None and rules.rule_problem(rules.PERCENT, params["busy_threshold"]):
        module.fail_json(msg="busy_threshold=%r is not allowed: %s" % (params["busy_threshold"], rules.PERCENT[1]))
    if not os.path.isfile(params["kubeconfig"]) or not os.access(params["kubeconfig"], os.R_OK):
        module.fail_json(msg="kubeconfig %s does not exist or is not readable" % params["kubeconfig"])
    if KUBERNETES_IMPORT_ERROR:
        module.fail_json(msg=missing_required_lib("kubernetes"), exception=KUBERNETES_IMPORT_ERROR)


def plan(test, params, version, note):
    """What the test would create (check mode)."""
    return {
        "server_version": version,
        "namespace": params["namespace"],
        "namespace_exists": test.namespace_exists(),
        "fake_nodes": test.workload["nodes"],
        "jobs": test.jobs_total(),
        "pods": test.pods_total(),
        "scheduler": params["scheduler"],
        "output_dir": params["output_dir"],
        "note": note,
    }


def run_test(test, params):
    """(files, summary, error): the load test run, and what it measured written even when it failed or was stopped
    (error: None, or why it failed)."""
    files, summary, error = [], None, None

    def interrupted(signum, _frame):
        # Once: a second SIGTERM (an interrupted run's wait and the host's guard both send one) must not cut short
        # the writing of what was measured.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise LoadTestError("interrupted by signal %d" % signum)

    # Stopped from outside (an interrupted wait for the asynchronous task, a teardown): keep what was measured.
    signal.signal(signal.SIGTERM, interrupted)
    if params.get("pid_file"):
        write_pid_file(params["pid_file"], os.getpid())
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
        except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
            error += "; partial results could not be written either: %s" % exc
    return files, summary, error


def clean_up(test, params):
    """Delete what the test created (with O(cleanup)); a sentence about anything left, or None."""
    cleanup_problem = None
    if params["cleanup"]:
        try:
            cleanup_problem = test.cleanup()
        except Exception as exc:  # noqa: BLE001 - the client raises many types; each is checked by status or reported
            cleanup_problem = error_text(exc)
    return cleanup_problem


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    refuse_bad_options(module, params)

    work = params["workload"]
    note = None if params["scenario"] else capacity.capacity_note(work)
    try:
        test = LoadTest(params)
    except Exception as exc:  # noqa: BLE001 - a kubeconfig the client cannot use
        module.fail_json(msg="kubeconfig %s cannot be used: %s" % (params["kubeconfig"], exc))
    try:
        version = test.probe()
        if module.check_mode:
            module.exit_json(changed=False, plan=plan(test, params, version, note))
    except LoadTestError as exc:
        module.fail_json(msg=str(exc))

    files, summary, error = run_test(test, params)
    cleanup_problem = clean_up(test, params)

    if params.get("pid_file"):
        remove_pid_file(params["pid_file"])
    result = dict(changed=True, summary=summary, files=files, note=note, cleanup_problem=cleanup_problem)
    failed = error or (summary and not summary["complete"] and not test.scenario_timed_out)
    test.progress.finish("failed" if failed else "complete")
    if error:
        module.fail_json(msg=error + (" (partial results in %s)" % params["output_dir"] if files else ""), **result)
    if failed:
        module.fail_json(msg=summary["reason"] + " (partial results in %s)" % params["output_dir"], **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
