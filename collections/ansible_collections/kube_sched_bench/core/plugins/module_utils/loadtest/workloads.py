# -*- coding: utf-8 -*-
"""The objects a load test creates for the scheduler under test, and checks of its options.

Each scheduler gets the job kind it is benchmarked with, or, with pod_creation "direct", the job's pods themselves
(and its group) without a Job: its own module's workload forms make them (module_utils/schedulers/<name>.py,
schedulers.FORMS), on the generic builders (module_utils/objects/builders.py: the fake nodes, the pod template, the
batch Job, the names), and this module picks the forms by the target's scheduler. No scheduler's name is written
here: a new scheduler is its own module. No I/O here.
"""
from __future__ import annotations

import re

from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.quantities import format_cpu, format_memory
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import DIRECT, NODE_SIZES, workload_problems
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.hold import arrival_problems
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects import builders
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import (
    BINDING_PROBE_NODE,
    BINDING_PROBE_SCHEDULER,
    DURATION_ANNOTATION,
    FAKE_NODE_ROLE,
    JOB_LABEL,
    KWOK_NODE_ANNOTATION,
    ROLE_LABEL,
    RUN_LABEL,
    Native,
    Target,
    binding,
    binding_probe_pod,
    calibration_job,
    fake_node,
    fake_nodes,
    job_name,
    node_name,
    own_labels,
    plurals,
    pod_name,
    priority_class_name,
    tenant_quotas,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.spec import burst_job, expand
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers.knob_checks import SCHEDULERS, pod_creation_problems

# The public names: this module's, and the builders' that the load test, the calibration and the tests read here.
__all__ = [
    "BINDING_PROBE_NODE", "BINDING_PROBE_SCHEDULER", "CLUSTER_APIS", "CUSTOM_APIS", "DURATION_ANNOTATION", "FAKE_NODE_ROLE",
    "JOB_LABEL", "KWOK_NODE_ANNOTATION", "NATIVE_FEATURES", "QUEUES_TO_OPEN", "ROLE_LABEL", "RUN_LABEL",
    "SCENARIO_NAMESPACED_APIS", "Native", "Target", "binding", "binding_probe_pod", "calibration_job", "cluster_objects",
    "fake_node", "fake_nodes", "job_name", "job_work", "node_name", "plurals", "pod_name", "priority_class_name",
    "scenario_features", "scenario_native", "scheduler_queues", "tenant_quotas", "unsupported", "validate", "workload",
]

# The custom resources the schedulers' jobs create: api name -> (group, version, plural); their modules' CUSTOM_APIS.
CUSTOM_APIS = descriptors.gathered("CUSTOM_APIS")
# The cluster-scoped objects of a scenario (cluster_objects): api name -> (group, version, plural).
CLUSTER_APIS = dict(builders.CLUSTER_APIS, **descriptors.gathered("CLUSTER_APIS"))
# The cluster-scoped queues a scheduler refuses jobs into until their status.state is Open.
QUEUES_TO_OPEN = descriptors.gathered("QUEUES_TO_OPEN")
# The namespaced objects of a scenario, made in the test's namespace with the cluster-scoped ones.
SCENARIO_NAMESPACED_APIS = descriptors.gathered("SCENARIO_NAMESPACED_APIS")

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def validate(params):
    """Return the first problem with the load-test options as one sentence, or None.

    ``params`` is the module's parameter dict. Only pure checks: files and the
    cluster are checked by the caller afterwards.
    """
    if params["scheduler"] not in SCHEDULERS:
        return "scheduler must be one of %s, got %r" % (", ".join(SCHEDULERS), params["scheduler"])
    if not _DNS_LABEL.match(params["namespace"]) or len(params["namespace"]) > 63:
        return "namespace must be a DNS label (lower case letters, digits, '-'), got %r" % (params["namespace"],)
    if not _LABEL_VALUE.match(params["run_label"]) or len(params["run_label"]) > 63:
        return "run_label must be a valid label value (letters, digits, '-', '_', '.'), got %r" % (params["run_label"],)
    work = params["workload"]
    if params.get("scenario") and isinstance(work, dict):
        # The scenario's jobs replace the workload's: its biggest must fit the nodes and the queues. Pools have no one
        # node size: the scenario's checks fitted its pods to them.
        work = job_work(max(expand(params["scenario"]), key=lambda job: job["pods_per_job"] * job["pod_millicores"]),
                        dict(work, **params["scenario"]["cluster"]))
        if work.get("pools"):
            work = dict(work, **{name: None for name in NODE_SIZES})
    problems = (workload_problems(work)
                or pod_creation_problems(work["pod_creation"], [params["scheduler"]], "workload.%s"))
    if not problems and work["arrival"] != "open-loop":
        scenario = params.get("scenario")
        problems = arrival_problems(work["arrival"], jobs=expand(scenario) if scenario else None,
                                    scenario_name=(scenario or {}).get("name"), label="workload.%s")
    return (problems or [None])[0]


def workload(index, target, work, job=None):
    """The objects to create for job ``index`` of the workload ``work`` for ``target``, in creation order.

    Returns a list of ``(api, body)``, where api is ``batch``, ``pod`` or a key of CUSTOM_APIS: the scheduler's
    forms' job_objects, or with work["pod_creation"] ``direct`` its direct_objects (the job is its pods, created
    here, with no Job object). A group (a PodGroup) comes first: a pod that names a missing group is not scheduled.
    ``job``: a job of a scenario (sched_scenarios.expand), which gives the name, the pods and their native form
    (scenario_native); without one, job ``index`` of the burst of ``work`` (sched_scenarios.burst), the same job
    its expansion gives.
    """
    job = job or burst_job(index, work)
    name = job["name"]
    work = job_work(job, work)
    native = scenario_native(job, target.scheduler, work)
    forms = descriptors.forms(target.scheduler)
    if work["pod_creation"] == DIRECT:
        refused = pod_creation_problems(DIRECT, [target.scheduler], "workload.%s")
        if refused:
            raise ValueError(refused[0])
        return forms.direct_objects(name, target, work, native)
    return forms.job_objects(name, target, work, native, not job.get("burst"))


# -- scenarios (module_utils/scenarios/spec.py): each scheduler's native form of tenants, priorities and gangs --

# What each scheduler expresses natively of a scenario's features (sched_scenarios.THRESHOLDS' second items), as
# this toolkit builds it: its descriptor's features, and topology when its descriptor names a topology mechanism;
# how, its module says (its forms).
TOPOLOGY = "topology"
NATIVE_FEATURES = {name: tuple(descriptor["features"]) + (
    (TOPOLOGY,) if descriptors.topology_mechanism(name)[0] != descriptors.UNSUPPORTED else ())
    for name, descriptor in descriptors.DESCRIPTORS.items()}


def scenario_features(scenario, jobs):
    """The features of a scenario that a scheduler may or may not express: gang, fair_share, priority, topology (a
    group's topology constraint)."""
    found = set()
    if any(job.get("topology") for job in jobs):
        found.add(TOPOLOGY)
    if any(job["gang"] for job in jobs):
        found.add("gang")
    if len(scenario["tenants"]) > 1:
        found.add("fair_share")
    if len({job["priority"] for job in jobs}) > 1:
        found.add("priority")
    return found


def unsupported(scheduler, features):
    """The features a scheduler cannot express (sorted), reported as such, never approximated: with topology among
    ``features``, also those its topology mechanism gives up (its descriptor's topology.gives_up)."""
    given_up = (descriptors.get(scheduler).get("topology") or {}).get("gives_up") or {} if TOPOLOGY in features else {}
    return sorted((set(features) - set(NATIVE_FEATURES[scheduler])) | (set(features) & set(given_up)))


def job_work(job, work):
    """The workload values of one scenario job: its pods' count, size (GPUs included) and duration, and its group's
    topology constraint as ``job_topology`` ({required: level} or {preferred: level}; None: none; ``topology`` is the
    cluster's levels), over the run's other values."""
    return dict(work, pods_per_job=job["pods_per_job"], pod_cpu=format_cpu(job["pod_millicores"]),
                pod_memory=format_memory(job["pod_memory_bytes"]), pod_gpu=job.get("pod_gpu", 0),
                pod_duration=job["pod_duration"], job_topology=job.get("topology"))


def _one_queue(scheduler):
    return descriptors.get(scheduler)["queue"]


def scenario_native(job, scheduler, work):
    """The Native form of a job for a scheduler. A burst job (sched_scenarios.burst; None is one) has the seed's: no
    priority, the scheduler's one queue, every job a gang where the scheduler gangs by a count, no task group. A
    scenario job that is no gang needs one pod placed to start; its queue is its tenant's (the forms' tenant_queue)
    where the scheduler shares by tenant."""
    if job is None or job.get("burst"):
        return Native(None, _one_queue(scheduler), work["pods_per_job"], False)
    features = NATIVE_FEATURES[scheduler]
    return Native(priority_class_name(job["priority"]) if "priority" in features else None,
                  descriptors.forms(scheduler).tenant_queue(job["tenant"]) if "fair_share" in features
                  else _one_queue(scheduler),
                  job["pods_per_job"] if job["gang"] else 1,
                  bool(job["gang"]) and "gang" in features)


def cluster_objects(scenario, jobs, target, capability):
    """The objects of a scenario besides its jobs for the scheduler under test, created before its jobs and deleted
    after them (its forms' cluster_objects: PriorityClasses, queues), labelled as the scenario's; the queues'
    ``capability`` is {cpu, memory} (bench_queue_quota). None for the burst, whose jobs go to the queue the
    scheduler's deployment made (scenario_native). Returns ``[(api, body)]``; api is a key of CLUSTER_APIS or
    SCENARIO_NAMESPACED_APIS."""
    if scenario.get("burst"):
        return []
    labels = dict(own_labels(target), **{ROLE_LABEL: "scenario"})
    return descriptors.forms(target.scheduler).cluster_objects(scenario, jobs, target, capability, labels)


def scheduler_queues(scenario, scheduler, capability):
    """The queues a scenario adds to ``scheduler``'s own configuration at deploy time (its forms' config_queues, the
    scheduler_queues filter); none for a scheduler without that form or for the burst."""
    config_queues = getattr(descriptors.forms(scheduler), "config_queues", None)
    return config_queues(scenario, capability) if config_queues else []
