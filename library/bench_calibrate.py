#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: measure a host's calibration probes, the API create ceiling and a single-core CPU probe."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_calibrate
short_description: Measure how fast a host's fresh cluster takes the load generator's Jobs and bindings, and how fast one core is
description:
  - Short, fixed probes, the same on every host, so that hosts of different speed compare.
  - The CPU probe runs a fixed piece of Python (integer arithmetic and dict stores) in one thread for three rounds
    of a second and reports passes per second.
  - The API create probe creates Jobs of the workload with the load generator's code (its thread pool of
    C(workload.submit_concurrency) requests, its client-side rate limit C(workload.client_qps) and
    C(workload.client_burst)) in a namespace of its own for three rounds of a second, and reports Jobs per second
    and the ceiling in pods per second (Jobs per second times C(workload.pods_per_job), or times 1 with
    C(workload.pod_creation=direct), where the load test creates every pod with a request of its own). The Jobs are
    suspended and managed by nobody (C(spec.managedBy)), so no controller or scheduler adds work to what is
    measured. Kubernetes before 1.32 drops that field; then the job controller syncs each Job while the probe runs,
    the result's C(object) says so and the module warns. Then it deletes the Jobs (one collection request) and the
    namespace.
  - The API binding probe, in the same namespace, creates three rounds of 400 pods (a scheduler name nobody serves)
    and binds each with a C(pods/binding) request of the load generator (same concurrency and rate limit) to a node
    that does not exist, timing only the bindings, and reports pods per second, how fast bindings go on this host with
    nothing else running. Its pods are deleted without grace with the namespace; none is a load test's.
  - With C(workload.submit_processes) above 1, both probes are made by that many processes of the load generator
    starting together, each with its share of the thread pool and of the rate limit, as the load test creates its
    jobs.
  - Each probe reports the median of its rounds, their min and max, the spread and how long it took.
  - With O(store_dir), every calibration is kept there, one file per basis, that is what the figures depend on (the
    probes, the API server's version, the Python, the host's kernel, machine and CPUs, the probed Job, the load
    generator's settings and O(fingerprint)). A later call of the same basis reuses the kept one while it is at
    most O(max_age) hours old, and measures nothing.
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
  namespace:
    description: Namespace for the probe's Jobs. It must not exist yet; it is created and deleted.
    type: str
    default: sched-bench-calibration
  run_label:
    description: Value of the C(sched-bench.io/run) label put on the namespace and the Jobs.
    type: str
    default: ""
  server_version:
    description:
      - The API server's version when the play knows it (the binary runtime builds it at its pin), so that a kept
        calibration is found without asking the API server; asked when omitted.
    type: str
  store_dir:
    description: Where calibrations are kept for later runs, one JSON file per basis; none kept when omitted.
    type: path
  max_age:
    description: Hours for which a kept calibration of the same basis is reused instead of measured; 0 reuses none.
    type: int
    default: 0
  fingerprint:
    description: What else the probes depend on that this module cannot see (the runtime), part of the basis.
    type: dict
    default: {}
  workload:
    description:
      - The workload description the bench role builds from the C(bench_*) variables, as for M(sched_loadtest).
        The Jobs are the default scheduler's Jobs of this workload; the load generator's settings are its own.
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Measure the host's calibration probes before any scheduler is deployed
  bench_calibrate:
    kubeconfig: /home/bench/kube-sched-bench/clusters/bench/admin.kubeconfig
    workload: "{{ bench_workload }}"
    store_dir: /home/bench/kube-sched-bench/calibrations
    max_age: 24
    fingerprint: {runtime: binary}
  register: calibration

- name: Show the API create ceiling
  ansible.builtin.debug:
    msg: "{{ calibration.calibration.api_create.ceiling_pods_per_s }} pods/s"
"""

RETURN = r"""
calibration:
  description:
    - The probes, as env.json records them under C(calibration), with when and by which run (O(run_label)) they
      were measured, and whether this call reused them (then also their age in hours).
  returned: when not in check mode
  type: dict
  sample:
    measured_at: "2026-12-03T13:04:05Z"
    measured_by_run: nightly-42
    reused: false
    api_create:
      object: Job (suspended)
      round_s: 1.0
      rounds_jobs_per_s: [498.1, 512.4, 505.0]
      jobs_per_s: {median: 505.0, min: 498.1, max: 512.4, spread_pct: 2.8}
      jobs_created: 1517
      ceiling_pods_per_s: 1515.0
      duration_s: 6.3
    api_binding:
      object: pods/binding of a pod that exists
      round_pods: 400
      rounds_pods_per_s: [1102.5, 1187.0, 1150.3]
      pods_per_s: {median: 1150.3, min: 1102.5, max: 1187.0, spread_pct: 7.3}
      pods_bound: 1200
      ceiling_pods_per_s: 1150.3
      duration_s: 2.9
    cpu:
      pass: 20000 steps of a linear congruential generator, each stored in a dict of 1024 slots
      round_s: 1.0
      rounds_passes_per_s: [281.0, 297.3, 262.5]
      passes_per_s: {median: 281.0, min: 262.5, max: 297.3, spread_pct: 12.4}
      python: 3.11.2
      duration_s: 3.0
why_measured:
  description: Why no kept calibration was reused.
  returned: when the probes ran
  type: str
  sample: none kept
plan:
  description: What the probes would do (check mode).
  returned: in check mode
  type: dict
"""

import json
import os
import platform
import threading
import time
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import rules
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import calibration, submitters, workloads


def kubernetes_client():
    """The load generator's client code and the Kubernetes client, imported only when the API server is asked: the
    import takes about a second, and a reused calibration needs neither."""
    from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest import client as sched_client
    from kubernetes import client as k8s_client
    return sched_client, k8s_client

# Each child process of a probe's round numbers its Jobs from a stretch of this many of its own, so that no two
# processes' or rounds' names meet (a round of a second creates a few hundred).
CHILD_INDEX_STRIDE = 100_000
ARGUMENT_SPEC = dict(
    kubeconfig=dict(type="path", required=True),
    context=dict(type="str"),
    namespace=dict(type="str", default="sched-bench-calibration"),
    run_label=dict(type="str", default=""),
    server_version=dict(type="str"),
    store_dir=dict(type="path"),
    max_age=dict(type="int", default=0),
    fingerprint=dict(type="dict", default={}),
    workload=dict(type="dict", required=True, options=rules.workload_options()),
)


class ProbeError(Exception):
    """A failure with a sentence for the user."""


def cpu_probe():
    start = time.perf_counter()
    rounds = [calibration.timed_round(calibration.cpu_pass, calibration.CPU_ROUND_S)
              for _ in range(calibration.CPU_ROUNDS)]
    return calibration.cpu_result(rounds, platform.python_version(), time.perf_counter() - start)


def host_facts():
    """What the probes' figures depend on of the host itself."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            model = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), "")
    except OSError:
        pass
    return {"name": platform.node(), "kernel": platform.release(), "machine": platform.machine(),
            "cpus": len(os.sched_getaffinity(0)), "cpu_model": model}


def read_kept(path):
    """The calibration kept at ``path``, or None (missing or unreadable: measured again)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


class ApiProbe:
    def __init__(self, params, sched_client, k8s_client):
        self.p = params
        self.sc, self.k8s = sched_client, k8s_client
        self.w = params["workload"]
        self.target = workloads.Target("default", params["namespace"], params["run_label"])
        self.client = sched_client.api_client(params["kubeconfig"], params["context"], self.w["submit_concurrency"] + 2)
        self.apis = sched_client.apis(self.client)
        self.core, self.batch = self.apis.core, self.apis.batch
        self.limiter = sched_client.RateLimiter(self.w["client_qps"], self.w["client_burst"])
        self.lock = threading.Lock()
        self.next_index = 0
        self.workers = None  # sched_submitters.ProbeWorkers with workload.submit_processes > 1

    def server_version(self):
        try:
            return self.k8s.VersionApi(self.client).get_code(_request_timeout=15).git_version
        except Exception as exc:  # noqa: BLE001 - any failure to connect is reported the same way
            raise ProbeError("the API server in kubeconfig %s does not answer: %s"
                             % (self.p["kubeconfig"], self.sc.error_text(exc))) from exc

    def namespace_exists(self):
        return self.sc.when_not_busy(lambda: self.sc.namespace_exists(self.core, self.p["namespace"]))

    def create_one(self):
        with self.lock:
            index, self.next_index = self.next_index, self.next_index + 1
        self.sc.create_workload(self.apis, self.p["namespace"], workloads.calibration_job(index, self.target, self.w),
                        self.limiter.acquire)

    def create_pod(self, name):
        self.limiter.acquire()
        self.sc.drain(self.core.create_namespaced_pod(self.p["namespace"], workloads.binding_probe_pod(
            name, self.target, self.w), _preload_content=False))

    def bind_pod(self, name):
        self.limiter.acquire()
        # The subresource a scheduler binds with (pods/<name>/binding), not the namespace's bindings resource.
        self.sc.drain(self.core.create_namespaced_pod_binding(name, self.p["namespace"], workloads.binding(
            name, workloads.BINDING_PROBE_NODE), _preload_content=False))

    def processes(self):
        return self.w["submit_processes"]

    def become_child(self, index):
        """This probe as the ``index``-th load generator process's: a client of its own, its share of the pool and
        of the rate limit; returns what the process does for each round (ProbeWorkers)."""
        processes, workers = self.processes(), self.w["submit_concurrency"]
        share = submitters.share(workers, processes, index)
        self.client = self.sc.api_client(self.p["kubeconfig"], self.p["context"], share + 2)
        self.client.user_agent = submitters.USER_AGENT % (index + 1)
        self.apis = self.sc.apis(self.client)
        self.core, self.batch = self.apis.core, self.apis.batch
        self.limiter = self.sc.RateLimiter(self.w["client_qps"] / processes,
                                           submitters.share(self.w["client_burst"], processes, index))

        def handle(command, argument):
            if command == "create":  # Jobs named from ``argument`` on
                self.next_index = argument
                return calibration.timed_round(self.create_one, calibration.API_ROUND_S, share)[0]
            return calibration.timed_batch(self.bind_pod, argument, share)[0]  # "bind" the pods named
        return handle

    def create_round(self):
        """(Jobs, seconds) of one timed round, made by the load generator's processes."""
        if self.workers is None:
            return calibration.timed_round(self.create_one, calibration.API_ROUND_S, self.w["submit_concurrency"])
        # Each child names its Jobs from a stretch of its own, past every earlier round's.
        first = self.next_index = max(self.next_index, CHILD_INDEX_STRIDE)
        self.next_index += self.processes() * CHILD_INDEX_STRIDE
        return self.workers.timed("create", [first + index * CHILD_INDEX_STRIDE for index in range(self.processes())])

    def bind_round(self, names):
        """(bindings, seconds) of binding ``names``, by the load generator's processes."""
        if self.workers is None:
            return calibration.timed_batch(self.bind_pod, names, self.w["submit_concurrency"])
        processes = self.processes()
        return self.workers.timed("bind", [names[index::processes] for index in range(processes)])

    def binding_rounds(self):
        """Each round creates its pods (not timed), then binds them all, timed."""
        rounds, workers = [], self.w["submit_concurrency"]
        for first in range(0, calibration.BIND_ROUNDS * calibration.BIND_ROUND_PODS, calibration.BIND_ROUND_PODS):
            names = ["bind-%05d" % index for index in range(first, first + calibration.BIND_ROUND_PODS)]
            calibration.timed_batch(self.create_pod, names, workers)
            rounds.append(self.bind_round(names))
        return rounds

    def run(self):
        """(api_create, api_binding): the two API probes, in a namespace of their own, deleted afterwards."""
        name = self.p["namespace"]
        if self.namespace_exists():
            raise ProbeError("namespace %s already exists: the calibration needs a fresh namespace (delete it)" % name)
        start = time.perf_counter()
        labels = {workloads.ROLE_LABEL: "calibration"}
        if self.p["run_label"]:
            labels[workloads.RUN_LABEL] = self.p["run_label"]
        self.sc.when_not_busy(lambda: self.sc.drain(self.core.create_namespace(
            {"metadata": {"name": name, "labels": labels}}, _preload_content=False)))
        try:
            step = "create its Jobs"
            if self.processes() > 1:  # before any thread of the probes runs
                self.workers = submitters.ProbeWorkers(self.processes(), self.become_child)
            rounds = [self.create_round() for _ in range(calibration.API_ROUNDS)]
            api = calibration.api_result(rounds, calibration.pods_per_create(self.w), time.perf_counter() - start,
                                         self.managed_by_kept())
            step, start = "bind its pods", time.perf_counter()
            binding = calibration.binding_result(self.binding_rounds(), time.perf_counter() - start)
        except Exception as exc:  # noqa: BLE001 - the client raises many types; reported in one sentence
            raise ProbeError("the calibration could not %s in namespace %s: %s"
                             % (step, name, self.sc.error_text(exc))) from exc
        finally:
            if self.workers is not None:
                self.workers.close()
            self.delete_namespace()
        return api, binding

    def managed_by_kept(self):
        """Whether the API server kept the probe's Jobs' spec.managedBy (one Job read back)."""
        jobs = self.sc.read_json(self.batch.list_namespaced_job(self.p["namespace"], limit=1, _preload_content=False))
        return any((job.get("spec") or {}).get("managedBy") for job in jobs.get("items") or [])

    def delete_namespace(self):
        """Delete the Jobs and the pods at once, so that none is left to weigh on the load test; then the namespace,
        which the namespace controller removes, empty, in the background. A deletion the loaded server times out
        is asked again: it goes on from the objects left."""
        name = self.p["namespace"]

        def again(call):
            return self.sc.when_not_busy(call, idempotent=True)
        again(lambda: self.sc.drain(self.batch.delete_collection_namespaced_job(
            name, propagation_policy="Background", _preload_content=False)))
        # The probe's pods are bound to a node without a kubelet: only a deletion without grace removes them.
        again(lambda: self.sc.drain(self.core.delete_collection_namespaced_pod(
            name, grace_period_seconds=0, _preload_content=False)))
        try:
            again(lambda: self.sc.drain(self.core.delete_namespace(name, _preload_content=False)))
        except self.sc.ApiException as exc:
            if exc.status not in (404, 409):  # gone, or going: a dropped first request went through
                raise


def refuse_bad_options(module, params):
    """Fail on options the calibration cannot run with, before the cluster is contacted."""
    problem = workloads.validate(dict(params, scheduler="default"))
    if problem:
        module.fail_json(msg=problem)
    if params["max_age"] < 0:
        module.fail_json(msg="max_age=%d is not allowed: use whole hours, 0 (measure every time) or more"
                             % params["max_age"])
    if not os.path.isfile(params["kubeconfig"]) or not os.access(params["kubeconfig"], os.R_OK):
        module.fail_json(msg="kubeconfig %s does not exist or is not readable" % params["kubeconfig"])


def connect(module, params):
    """The ApiProbe of the kubeconfig; fails the module without the kubernetes client or with a kubeconfig it cannot
    use."""
    try:
        client = kubernetes_client()
    except ImportError:
        module.fail_json(msg=missing_required_lib("kubernetes"), exception=traceback.format_exc())
    try:
        return ApiProbe(params, *client)
    except Exception as exc:  # noqa: BLE001 - a kubeconfig the client cannot use
        module.fail_json(msg="kubeconfig %s cannot be used: %s" % (params["kubeconfig"], exc))


def plan(params, probe, version, reused, why, kept_path):
    """What the calibration would do (check mode)."""
    return {
        "reuse": reused, "why_measured": why, "kept": kept_path,
        "server_version": version, "namespace": params["namespace"],
        "namespace_exists": probe.namespace_exists(),
        "cpu": "%d rounds of %g s" % (calibration.CPU_ROUNDS, calibration.CPU_ROUND_S),
        "api_create": "%d rounds of %g s, %d requests at once from %d processes" % (
            calibration.API_ROUNDS, calibration.API_ROUND_S, params["workload"]["submit_concurrency"],
            params["workload"]["submit_processes"]),
        "api_binding": "%d rounds of %d pods, %d requests at once from %d processes" % (
            calibration.BIND_ROUNDS, calibration.BIND_ROUND_PODS, params["workload"]["submit_concurrency"],
            params["workload"]["submit_processes"])}


def keep(module, kept_path, result, basis, taken_at):
    """Keep the calibration for later runs on this host (a warning when it cannot be written)."""
    try:
        write_atomically(kept_path, json.dumps(calibration.kept_record(result, basis, taken_at), indent=1,
                                               sort_keys=True) + "\n", make_dirs=True)
    except OSError as exc:
        module.warn("the calibration could not be kept for later runs in %s: %s" % (kept_path, exc))


def main():
    module = AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True)
    params = module.params
    refuse_bad_options(module, params)
    probe = None

    def failure(exc):
        return probe.sc.error_text(exc) if probe else str(exc)

    try:
        version = params["server_version"]
        if not version:
            probe = connect(module, params)
            version = probe.server_version()
        basis = calibration.basis(version, platform.python_version(), host_facts(),
                                  workloads.calibration_job(0, workloads.Target("default", "calibration", ""),
                                                            params["workload"]),
                                  params["workload"], params["fingerprint"])
        kept_path = (os.path.join(params["store_dir"], calibration.basis_key(basis) + ".json")
                     if params["store_dir"] else None)
        reused, why = calibration.reusable(read_kept(kept_path) if kept_path else None, basis, time.time(),
                                           params["max_age"])
        if reused and not module.check_mode:
            module.exit_json(changed=False, calibration=reused)
        probe = probe or connect(module, params)
        if module.check_mode:
            module.exit_json(changed=False, plan=plan(params, probe, version, reused, why, kept_path))
        if params["server_version"]:
            probe.server_version()      # the cluster answers before anything is measured
        taken_at = time.time()
        # The CPU probe first, while the fresh cluster is idle; the Jobs' clean-up would disturb it.
        cpu = cpu_probe()
        api, binding = probe.run()
    except ProbeError as exc:
        module.fail_json(msg=str(exc))
    except Exception as exc:  # noqa: BLE001 - the cluster failed under us
        module.fail_json(msg="the calibration failed: %s" % failure(exc))
    if api["object"] == calibration.JOBS_SYNCED:
        module.warn("the calibration's create ceiling includes the job controller's work: Kubernetes %s dropped the "
                    "probe Jobs' spec.managedBy (on by default since 1.32), so it synced each one" % version)
    result = calibration.measured({"api_create": api, "api_binding": binding, "cpu": cpu}, params["run_label"],
                                  taken_at)
    if kept_path:
        keep(module, kept_path, result, basis, taken_at)
    module.exit_json(changed=True, calibration=result, why_measured=why)


if __name__ == "__main__":
    main()
