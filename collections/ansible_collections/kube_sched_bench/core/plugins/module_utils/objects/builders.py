# -*- coding: utf-8 -*-
"""Pure builders of the objects a load test creates that no scheduler has of its own: the fake nodes, the pod
template every job's pods start from, the batch Job, pods created directly, the calibration's objects, the names, and
the parts of a scenario every scheduler's form may use (PriorityClasses, tenant queue names and quotas).

The fake nodes and the batch jobs follow the published comparison: nodes with label type=kwok and the kwok taint;
jobs of N pods that ask for a little CPU and memory, tolerate the taint and "run" for a while through a kwok stage.
What a scheduler makes of them (its pod template, its job kind, its groups, queues and scenario objects) is its own
module's (module_utils/schedulers/<name>.py), which builds on these; workloads.py picks it. Nothing here knows a
scheduler, nor imports the schedulers' package. No I/O here.
"""
from __future__ import annotations

import copy
import re
from collections import namedtuple

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import node_pools
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.quantities import (
    format_cpu,
    format_memory,
    millicores,
    size_bytes,
)

# Our own label and annotation keys.
RUN_LABEL = "sched-bench.io/run"
ROLE_LABEL = "sched-bench.io/role"
# Every fake node's role (fake_node).
FAKE_NODE_ROLE = "fake-node"
DURATION_ANNOTATION = "sched-bench.io/run-duration"
# The job a pod belongs to when the load test creates the pods itself (bench_pod_creation=direct): no Job owns them.
JOB_LABEL = "sched-bench.io/job"
# The ConfigMap that marks the release of a held backlog (loadtest/hold.py): its creation in the audit log is the
# release time (metrics/audit.py).
RELEASE_MARKER = "sched-bench-release"

# A node's pool (the pools form of a scenario's cluster), and its place at each topology level: this prefix and the
# level's name (docs/scenarios.md#node-pools-and-topology).
POOL_LABEL = "sched-bench.io/pool"
TOPOLOGY_LABEL_PREFIX = "topology.sched-bench.io/"
# The weight of a preferred topology's pod affinity term (the highest kube-scheduler allows).
PREFERRED_WEIGHT = 100

KWOK_TAINT_KEY = "kwok.x-k8s.io/node"
KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node"

# spec.managedBy of the calibration's Jobs: the job controller (Kubernetes 1.32 and later) leaves them alone.
CALIBRATION_MANAGER = "sched-bench.io/calibration"
# The calibration's binding probe: its pods' scheduler name (served by no scheduler) and the node they are bound to
# (none of that name exists).
BINDING_PROBE_SCHEDULER = "sched-bench-binding-probe"
BINDING_PROBE_NODE = "sched-bench-binding-probe"

# A scenario's Job does not fail when the scheduler preempts one of its pods (the pod then has the DisruptionTarget
# condition): its controller makes a replacement, as a batch user's Job would ask.
PREEMPTION_IS_NO_FAILURE = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}

PRIORITY_CLASS_PREFIX = "sched-bench-priority-"
# A tenant's queue name (prefixed: a scheduler may have a queue named default of its own, as Volcano has).
TENANT_QUEUE_PREFIX = "sched-bench-"
# The cluster-scoped objects of a scenario every scheduler may make (priority_classes): api name -> (group,
# version, plural). The schedulers' own are in their modules (CLUSTER_APIS).
CLUSTER_APIS = {"priorityclass": ("scheduling.k8s.io", "v1", "priorityclasses")}

# Where the objects go: the scheduler under test, the test's namespace and the run's label value.
Target = namedtuple("Target", "scheduler namespace run_label")
# A job's native form: its pods' PriorityClass (None: none), its queue (None: none; else the scheduler's queue of
# the burst or the tenant's, tenant_queue of its module), how many of its pods must be placed together (1: any one),
# and whether it is a scenario's gang the scheduler places whole by a form of its own (a task group).
Native = namedtuple("Native", "priority_class queue min_member gang")


def plurals(api_resource_list):
    """Kind to resource name for the namespaced resources of an APIResourceList (discovery of one group version)."""
    return {
        resource["kind"]: resource["name"]
        for resource in api_resource_list.get("resources") or []
        if resource.get("namespaced") and "/" not in resource.get("name", "")
    }


def node_name(prefix, index):
    return "%s%d" % (prefix, index)


def node_index(name):
    """The number node_name gave a fake node."""
    return int(re.search(r"[0-9]+$", name).group(0))


def job_name(index):
    return "job-%05d" % index


def pod_name(job, index):
    return "%s-%d" % (job, index)


def own_labels(target):
    """The labels of every object the load test makes: its role, and the run's label when there is one."""
    labels = {ROLE_LABEL: "load"}
    if target.run_label:
        labels[RUN_LABEL] = target.run_label
    return labels


def topology_key(level):
    """The node label of topology level ``level`` (its name): topology.sched-bench.io/<level>."""
    return TOPOLOGY_LABEL_PREFIX + level


def topology_labels(levels, index, nodes):
    """The labels of node ``index`` of ``nodes`` at each topology level (``levels``: from the top, each with its name
    and count per group of the level above). The nodes are dealt in order to the lowest level's groups, an equal run
    of nodes each; a value names the group's place from the top: block-1, block-1-rack-2."""
    group, places = index // (nodes // node_pools.lowest_groups(levels)), []
    for level in reversed(levels):
        places.insert(0, group % level["count"] + 1)
        group //= level["count"]
    labels, value = {}, []
    for level, place in zip(levels, places):
        value.append("%s-%d" % (level["name"], place))
        labels[topology_key(level["name"])] = "-".join(value)
    return labels


def fake_nodes(prefix, target, work):
    """[(name, Node)] of the workload's fake nodes, pools in order, numbered from 0 across the pools, with their
    pool's labels (and its name where the cluster has pools) and their topology labels (``work["topology"]``)."""
    found = node_pools.pools(work)
    total = sum(pool["count"] for pool in found)
    levels = (work.get("topology") or {}).get("levels") or []
    out = []
    for pool in found:
        labels = dict(pool["labels"], **({POOL_LABEL: pool["name"]} if work.get("pools") else {}))
        for index in range(len(out), len(out) + pool["count"]):
            name = node_name(prefix, index)
            out.append((name, fake_node(name, target, pool, dict(labels, **topology_labels(levels, index, total)))))
    return out


def fake_node(name, target, pool, extra_labels=None):
    """A Node that kwok manages: labelled type=kwok (and ``extra_labels``), tainted, with the capacity (and as much
    allocatable) of a node of ``pool`` (node_pools.pools): CPU, memory, pods and its extended resources."""
    resources = {"cpu": pool["cpu"], "memory": pool["memory"], "pods": str(pool["pods"])}
    resources.update({resource: str(count) for resource, count in pool["resources"].items()})
    labels = dict(extra_labels or {})
    labels.update({
        "type": "kwok",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        ROLE_LABEL: FAKE_NODE_ROLE,
    })
    if target.run_label:
        labels[RUN_LABEL] = target.run_label
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": labels,
            "annotations": {KWOK_NODE_ANNOTATION: "fake", "node.alpha.kubernetes.io/ttl": "0"},
        },
        "spec": {"taints": [{"key": KWOK_TAINT_KEY, "value": "fake", "effect": "NoSchedule"}]},
        "status": {"allocatable": dict(resources), "capacity": dict(resources)},
    }


def base_pod_template(target, work, scheduler_name=None, extra_labels=None, priority_class=None):
    """The pod template every job's pods start from: on the kwok nodes, the workload's requests (and as many limits;
    its GPUs, work["pod_gpu"], when it asks for some), its duration; ``scheduler_name`` its spec.schedulerName (None:
    the default scheduler's), ``extra_labels`` after ours, ``priority_class`` its PriorityClass (None: none)."""
    labels = dict(own_labels(target), app="sched-bench")
    labels.update(extra_labels or {})
    requests = {"cpu": work["pod_cpu"], "memory": work["pod_memory"]}
    if work.get("pod_gpu"):
        requests[node_pools.GPU] = str(work["pod_gpu"])
    spec = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "terminationGracePeriodSeconds": 0,
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [
                {"key": "type", "operator": "In", "values": ["kwok"]}]}]}}},
        "tolerations": [{"key": KWOK_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}],
        "containers": [{
            "name": "work",
            "image": "fake-image",
            "resources": {"requests": dict(requests), "limits": dict(requests)},
        }],
    }
    if scheduler_name:
        spec["schedulerName"] = scheduler_name
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {
        "metadata": {
            "labels": labels,
            "annotations": {DURATION_ANNOTATION: "%gs" % work["pod_duration"]},
        },
        "spec": spec,
    }


def job_topology_affinity(name, template, work):
    """``template`` (changed in place and returned) with the pods of job ``name`` kept in one domain of the topology
    level its group asks for (``work["job_topology"]``: {required: level} or {preferred: level}; None: unchanged) by
    pod affinity among them: labelled JOB_LABEL=``name``, a term on that label with the level's node label as its
    topologyKey, required (requiredDuringSchedulingIgnoredDuringExecution) or preferred with weight PREFERRED_WEIGHT.
    The first pod of a job may go anywhere (no pod matches yet, and it matches its own term); the others follow it."""
    constraint = work.get("job_topology")
    if not constraint:
        return template
    template["metadata"]["labels"][JOB_LABEL] = name
    (kind, level), = constraint.items()
    term = {"labelSelector": {"matchLabels": {JOB_LABEL: name}}, "topologyKey": topology_key(level)}
    affinity = ({"requiredDuringSchedulingIgnoredDuringExecution": [term]} if kind == "required"
                else {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": PREFERRED_WEIGHT,
                                                                            "podAffinityTerm": term}]})
    template["spec"]["affinity"]["podAffinity"] = affinity
    return template


def batch_job(name, target, work, template, job_labels=None, suspend=False, scenario=False):
    """A batch/v1 Job of the workload's pods of ``template``, all at once, never retried; ``suspend``: created
    suspended (for a queue to admit); ``scenario``: a scenario's job, which survives a pod's preemption."""
    labels = own_labels(target)
    labels.update(job_labels or {})
    spec = {
        "parallelism": work["pods_per_job"],
        "completions": work["pods_per_job"],
        "backoffLimit": 0,
        "template": template,
    }
    if suspend:
        spec["suspend"] = True
    if scenario:
        spec["podFailurePolicy"] = copy.deepcopy(PREEMPTION_IS_NO_FAILURE)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": target.namespace, "labels": labels},
        "spec": spec,
    }


def direct_pods(name, target, work, template):
    """The pods of job ``name`` as the load test creates them itself (bench_pod_creation=direct): ``template`` (the
    job's pod template; its labels get the job's name in JOB_LABEL), one pod each, named after the job."""
    template["metadata"]["labels"][JOB_LABEL] = name
    pods = []
    for index in range(work["pods_per_job"]):
        pod = copy.deepcopy(template)
        pod["metadata"].update(name=pod_name(name, index), namespace=target.namespace)
        pods.append(("pod", dict(pod, apiVersion="v1", kind="Pod")))
    return pods


def calibration_job(index, target, work):
    """Job ``index`` of the calibration's create probe: the default scheduler's Job, suspended and managed by
    nobody (spec.managedBy), so that no controller writes its status or events and no pod is created: only the
    API server's create path is measured."""
    job = batch_job(job_name(index), target, work, base_pod_template(target, work), suspend=True)
    job["spec"]["managedBy"] = CALIBRATION_MANAGER
    return [("batch", job)]


def binding_probe_pod(name, target, work):
    """A pod of the calibration's binding probe: the default scheduler's pod template with a scheduler name nobody
    serves, so that only the probe binds it, to BINDING_PROBE_NODE, a node that does not exist, so that neither
    kwok nor a kubelet acts on it."""
    template = base_pod_template(target, work, scheduler_name=BINDING_PROBE_SCHEDULER)
    return {"apiVersion": "v1", "kind": "Pod", "spec": template["spec"],
            "metadata": dict(template["metadata"], name=name, namespace=target.namespace)}


def binding(pod, node):
    """The pods/binding request that puts ``pod`` on ``node``."""
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": pod},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}}


# -- scenarios: the parts of the schedulers' native forms of tenants and priorities that they share --

def priority_class_name(value):
    return "%s%d" % (PRIORITY_CLASS_PREFIX, value)


def priority_field(native):
    """{"priorityClassName": ...} for a job whose native form has a PriorityClass, else {}."""
    return {"priorityClassName": native.priority_class} if native.priority_class else {}


def tenant_queue_name(tenant):
    """A tenant's queue: Volcano's Queue, Kueue's ClusterQueue and LocalQueue, YuniKorn's queue under root."""
    return TENANT_QUEUE_PREFIX + tenant


def quantity(number):
    """A weight as a Kubernetes quantity: 2 -> "2", 1.5 -> "1.5"."""
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def tenant_quotas(tenants, capability):
    """Each tenant's weight's part of ``capability`` ({cpu, memory} quantities, and counts of extended resources such
    as nvidia.com/gpu): {tenant: {"cpu": q, "memory": q, ...}}, Kueue's nominal quota (an extended resource's part
    rounded down to a whole count); its CPU is YuniKorn's guaranteed vcore."""
    total = sum(tenants.values())
    extended = sorted(set(capability) - {"cpu", "memory"})
    return {tenant: dict({"cpu": format_cpu(millicores(capability["cpu"]) * weight / total),
                          "memory": format_memory(size_bytes(capability["memory"]) * weight / total)},
                         **{name: str(int(int(capability[name]) * weight // total)) for name in extended})
            for tenant, weight in tenants.items()}


def priority_classes(scenario, jobs, labels):
    """A PriorityClass per priority value of ``jobs`` (kube-scheduler's and the schedulers' that read the pods'
    priority; it preempts lower priorities), labelled ``labels``. Its api name is a key of CLUSTER_APIS."""
    return [("priorityclass", {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
        "metadata": {"name": priority_class_name(value), "labels": dict(labels)},
        "value": value, "globalDefault": False, "preemptionPolicy": "PreemptLowerPriority",
        "description": "sched-bench scenario %s" % scenario["name"],
    }) for value in sorted({job["priority"] for job in jobs})]
