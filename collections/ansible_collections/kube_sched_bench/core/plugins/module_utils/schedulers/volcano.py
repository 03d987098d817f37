# -*- coding: utf-8 -*-
"""Volcano: a batch system with its own scheduler, job kind (vcjob), queues and PodGroups.

A scheduler's own file (docs/adding-a-scheduler.md): its descriptor and its workload forms. A job is a vcjob (its
job controller makes the job's PodGroup and pods) of minAvailable pods, in its queue; pods the load test makes itself
come after the PodGroup it makes for them. A scenario gives each tenant a Queue with its weight, gangs by
minAvailable and a PriorityClass per priority value; a cluster with a topology, a HyperNode per group of each level
(hyper_nodes), and a group that asks to stay in one domain of a level, its Job's networkTopology (network_topology).
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.node_pools import GPU, pools
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.quantities import (
    format_cpu,
    format_memory,
    millicores,
    size_bytes,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import (
    base_pod_template,
    direct_pods,
    own_labels,
    priority_classes,
    priority_field,
    tenant_queue_name,
    topology_labels,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import views

# The objects of its jobs: api name -> (group, version, plural), namespaced.
CUSTOM_APIS = {
    "volcano": ("batch.volcano.sh", "v1alpha1", "jobs"),
    "volcano-podgroup": ("scheduling.volcano.sh", "v1beta1", "podgroups"),
}
# The cluster-scoped objects of its scenarios (cluster_objects), and those among them it refuses jobs into until
# their status.state is Open.
CLUSTER_APIS = {"volcano-queue": ("scheduling.volcano.sh", "v1beta1", "queues"),
                "volcano-hypernode": ("topology.volcano.sh", "v1alpha1", "hypernodes")}
QUEUES_TO_OPEN = ("volcano-queue",)
# Its scheduler groups pods by this annotation (volcano.sh/apis scheduling/v1beta1 KubeGroupNameAnnotationKey); its
# PodGroup controller leaves a pod that has it alone instead of making a one-pod group for it.
GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
# A HyperNode's name: this prefix and its group's topology label value (sched-bench-block-1-rack-2).
HYPER_NODE_PREFIX = "sched-bench-"
# A scenario group's topology (work["job_topology"]: {required: level} or {preferred: level}) as a networkTopology
# mode: required keeps every pod of the job in one HyperNode of that level's tier or below, preferred tries to.
TOPOLOGY_MODES = {"required": "hard", "preferred": "soft"}
DESCRIPTOR = {
    "name": "volcano",
    # Refused by some module proxies: give a mirror first in golang_goproxy (docs/runtimes-and-schedulers.md).
    "version": "v1.12.2",
    "runtimes": ("binary", "kind"),
    "pod_scheduler_name": "volcano",
    # The burst's Queue (roles/scheduler/tasks/volcano/init.yml creates it).
    "queue": "test-queue",
    "namespace": "volcano-system",
    "features": ("gang", "fair_share", "priority"),
    "queue_quota": True,
    "whole_job": True,
    # Its job controller creates a vcjob's pods once the enqueue action has let its PodGroup in.
    "admission": "enqueues the PodGroup",
    "direct_pods": "",
    # How the audit log shows its admission: the job's PodGroup reaching one of these phases (a patch or update of
    # it or its status, audited at Request level); its vcjobs are audited like Jobs, and name their pods' job in
    # job_name_label.
    "admitted_phase": {"group": "scheduling.volcano.sh", "resource": "podgroups", "phases": ("Inqueue", "Running")},
    "audited_jobs": {"group": "batch.volcano.sh", "resources": ["jobs"]},
    "job_name_label": "volcano.sh/job-name",
    "build": {
        "module": "volcano.sh/volcano",
        "commands": {
            "vc-scheduler": "volcano.sh/volcano/cmd/scheduler",
            "vc-controller-manager": "volcano.sh/volcano/cmd/controller-manager",
            "vc-webhook-manager": "volcano.sh/volcano/cmd/webhook-manager",
        },
        "version_vars": ["volcano.sh/volcano/pkg/version.Version"],
    },
    "release": {"manifest_url": "https://raw.githubusercontent.com/volcano-sh/volcano/{version}/installer/"
                                "volcano-development.yaml"},
    # Its own roles/scheduler/tasks/volcano/binary.yml starts its three processes from the release's configuration.
    "local": {
        "processes": ["vc-scheduler", "vc-controller-manager", "vc-webhook-manager"],
        "ports": ["volcano_webhook", "volcano_webhook_health", "volcano_controller_health", "volcano_scheduler_health",
                  "volcano_scheduler_metrics"],
        "crds": ["config/crd/volcano/bases", "config/crd/jobflow/bases"],
        # vc-webhook-manager waits at its start until its configurations exist, to put its CA in them: first.
        "webhooks": {"manifest": "installer/volcano-development.yaml", "port": "volcano_webhook", "first": True},
        "init": True,
        # vc-scheduler serves net/http/pprof beside its metrics.
        "pprof": "volcano_scheduler_metrics",
        "metrics": [{"process": "vc-scheduler", "port": "volcano_scheduler_metrics", "path": "/metrics"}],
    },
    # bench_arrival=backlog: vc-scheduler is stopped until the release, its controller and webhooks run on. Its
    # controller makes a job's pods only once the scheduler enqueued its PodGroup, so the backlog is the PodGroups.
    # A session every schedule period (its e2e latency's observations are the cycles), by action and plugin.
    "internals": {"vc-scheduler": [
        {"key": "cycles", "view": "histogram", "metric": "volcano_e2e_scheduling_latency_milliseconds",
         "unit_ms": views.MILLISECONDS},
        {"key": "busiest_actions", "view": "busiest", "metric": "volcano_action_scheduling_latency_milliseconds",
         "label": "action", "unit_ms": views.MILLISECONDS, "top": 5},
        {"key": "busiest_plugins", "view": "busiest", "metric": "volcano_plugin_scheduling_latency_milliseconds",
         "label": "plugin", "unit_ms": views.MILLISECONDS, "top": 5},
        {"key": "task_latency", "view": "histogram", "metric": "volcano_task_scheduling_latency_milliseconds",
         "unit_ms": views.MILLISECONDS},
    ]},
    "hold": {"processes": ("vc-scheduler",), "backlog": "scheduling.volcano.sh/v1beta1/podgroups"},
    # bench_scheduler_profile=batch: keys put over the top level of volcano-scheduler.conf (roles/scheduler/tasks/
    # volcano/binary.yml); seed: the release's configuration as it ships. docs/runtimes-and-schedulers.md lists them.
    "profiles": {"batch": {
        "actions": {
            "value": "enqueue, allocate, backfill, reclaim, preempt",
            "source": "https://volcano.sh/en/docs/actions/",
            "what": "reclaim (a queue takes back from the others what they use of its deserved share) and preempt (a "
                    "job's pods evict those of lower priority) after the release's enqueue, allocate and backfill, in the "
                    "order of its own volcano-scheduler-ci.conf; the plugins they consult (priority, gang, conformance, "
                    "drf, proportion) are in the release's tiers already",
        },
    }},
    # A scenario with a topology: a HyperNode per group of each level (cluster_objects), the network-topology-aware
    # plugin in vc-scheduler's configuration (binary runtime: roles/scheduler/tasks/volcano/binary.yml), and a group's
    # topology as its Job's networkTopology, tier by tier (network_topology). v1.12 and later.
    "topology": {"mechanism": "network-topology-aware (HyperNodes, Job networkTopology)",
                 "source": "https://volcano.sh/en/docs/network_topology_aware_scheduling/"},
    "ready": "each process's health port and the webhook's TLS port (binary); the release's Deployments, webhook "
             "Service endpoints and certificate Secret (kind); then the burst's Queue is Open",
}


def pod_template(name, target, work, native):
    """The pod template of job ``name``: its scheduler's pods, with the job's PriorityClass."""
    return base_pod_template(target, work, scheduler_name=DESCRIPTOR["pod_scheduler_name"],
                             priority_class=native.priority_class)


def topology_levels(work):
    """The cluster's topology levels (from the top) of the workload values ``work``; none without a topology."""
    shape = work.get("topology") or {}
    return shape.get("levels") or []


def network_topology(work):
    """The networkTopology of a job of the workload values ``work`` whose group asks for one domain of a topology
    level (work["job_topology"]); None when it does not. The level's tier: 1 for the lowest level, one more each
    level up (hyper_nodes); soft mode keeps highestTierAllowed for the record (v1.12's soft mode reads no tier)."""
    request = work.get("job_topology") or {}
    if not request:
        return None
    (kind, level), = request.items()
    names = [entry["name"] for entry in topology_levels(work)]
    if kind not in TOPOLOGY_MODES or level not in names:
        raise ValueError("job_topology %r is not allowed: use required or preferred with one of the cluster's "
                         "topology levels (%s)" % (request, ", ".join(names) or "none"))
    return {"mode": TOPOLOGY_MODES[kind], "highestTierAllowed": len(names) - names.index(level)}


def job_objects(name, target, work, native, scenario):
    """Job ``name``: one vcjob of minAvailable (the gang's) pods in its queue, with its group's networkTopology."""
    topology = network_topology(work)
    return [("volcano", {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": target.namespace, "labels": own_labels(target)},
        "spec": dict({
            "minAvailable": native.min_member,
            "schedulerName": DESCRIPTOR["pod_scheduler_name"],
            "queue": native.queue,
            "tasks": [{"name": "task", "replicas": work["pods_per_job"], "template": pod_template(name, target, work, native)}],
        }, **priority_field(native), **({"networkTopology": topology} if topology else {})),
    })]


def pod_group(name, target, work, native):
    """The PodGroup of one job, as its job controller makes one for a vcjob: the gang's size, its queue and the
    gang's quota usage, what the enqueue action weighs against the queue (Kubernetes' usage of a pod: its requests,
    limits, which equal them here, and the pod counts), and its group's networkTopology."""
    pods = native.min_member
    topology = network_topology(work)
    cpu = format_cpu(pods * millicores(work["pod_cpu"]))
    memory = format_memory(pods * size_bytes(work["pod_memory"]))
    gpus = str(pods * work["pod_gpu"]) if work.get("pod_gpu") else None
    return ("volcano-podgroup", {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": target.namespace, "labels": own_labels(target)},
        "spec": dict({
            "minMember": native.min_member,
            "queue": native.queue,
            "minResources": {"cpu": cpu, "requests.cpu": cpu, "limits.cpu": cpu, "memory": memory,
                             "requests.memory": memory, "limits.memory": memory, "pods": str(pods),
                             "count/pods": str(pods),
                             **({GPU: gpus, "requests." + GPU: gpus} if gpus else {})},
        }, **priority_field(native), **({"networkTopology": topology} if topology else {})),
    })


def direct_objects(name, target, work, native):
    """Job ``name`` when the load test makes its pods: its PodGroup first (a pod that names a missing group is not
    scheduled; v1.11's pod webhook refused it), then the pods, each annotated with the group."""
    template = pod_template(name, target, work, native)
    template["metadata"]["annotations"][GROUP_ANNOTATION] = name
    return [pod_group(name, target, work, native)] + direct_pods(name, target, work, template)


def tenant_queue(tenant):
    """A tenant's Queue."""
    return tenant_queue_name(tenant)


def integer_weights(tenants):
    """Its queue weights are whole numbers: the scenario's as they are when whole, else scaled so that the smallest
    is 100 (the ratios kept to a percent)."""
    weights = list(tenants.values())
    if all(float(weight).is_integer() for weight in weights):
        return {name: int(weight) for name, weight in tenants.items()}
    smallest = min(weights)
    return {name: max(1, int(round(weight * 100 / smallest))) for name, weight in tenants.items()}


def hyper_nodes(cluster, labels):
    """[(api, HyperNode)] of a scenario's ``cluster`` with a topology (none without one), the lowest level first: a
    HyperNode per group of each level, named after the group's label value (objects/builders.py topology_labels), at
    tier 1 for the lowest level and one more each level up; a lowest group's members are its nodes, by its label
    (labelMatch), a higher group's the HyperNodes of its groups one level down (exactMatch)."""
    levels = topology_levels(cluster)
    if not levels:
        return []
    nodes = sum(pool["count"] for pool in pools(cluster))
    keys = list(topology_labels(levels, 0, nodes))
    members = [{} for _ in keys]  # by level: group -> its members' groups one level down, in order
    for index in range(nodes):
        values = topology_labels(levels, index, nodes)
        for depth, key in enumerate(keys):
            below = members[depth].setdefault(values[key], [])
            if depth + 1 < len(keys) and values[keys[depth + 1]] not in below:
                below.append(values[keys[depth + 1]])
    out = []
    for depth in reversed(range(len(keys))):
        for group, below in members[depth].items():
            if depth + 1 == len(keys):
                spec_members = [{"type": "Node", "selector": {"labelMatch": {"matchLabels": {keys[depth]: group}}}}]
            else:
                spec_members = [{"type": "HyperNode", "selector": {"exactMatch": {"name": HYPER_NODE_PREFIX + child}}}
                                for child in below]
            out.append(("volcano-hypernode", {
                "apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
                "metadata": {"name": HYPER_NODE_PREFIX + group, "labels": dict(labels)},
                "spec": {"tier": len(keys) - depth, "members": spec_members},
            }))
    return out


def cluster_objects(scenario, jobs, target, capability, labels):
    """A PriorityClass per priority value, a Queue per tenant with its weight (reclaimable, so that a queue over its
    share gives back to the others) and the queues' ``capability`` ({cpu, memory}, bench_queue_quota, and the
    cluster's extended resources such as nvidia.com/gpu), and the HyperNodes of its cluster's topology."""
    return priority_classes(scenario, jobs, labels) + [("volcano-queue", {
        "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
        "metadata": {"name": tenant_queue_name(tenant), "labels": dict(labels)},
        "spec": {"weight": weight, "reclaimable": True, "capability": dict(capability)},
    }) for tenant, weight in sorted(integer_weights(scenario["tenants"]).items())] + hyper_nodes(scenario["cluster"], labels)
