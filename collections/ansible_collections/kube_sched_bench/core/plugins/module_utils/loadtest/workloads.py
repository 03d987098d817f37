# -*- coding: utf-8 -*-
"""Pure builders for the objects a load test creates, and checks of its options.

The fake nodes and the batch jobs follow the published comparison: nodes with
label type=kwok and the kwok taint; jobs of N pods that ask for a little CPU and
memory, tolerate the taint and "run" for a while through a kwok stage. Each
scheduler gets the job kind it is benchmarked with, or, with pod_creation
"direct", the job's pods themselves (and its group) without a Job. No I/O here.
"""
from __future__ import annotations

import copy
import json
import re
from collections import namedtuple

from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import (
    DIRECT,
    SCHEDULERS,
    format_cpu,
    format_memory,
    millicores,
    pod_creation_problems,
    size_bytes,
    workload_problems,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.hold import arrival_problems
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.spec import burst_job, expand

# Our own label and annotation keys.
RUN_LABEL = "sched-bench.io/run"
ROLE_LABEL = "sched-bench.io/role"
DURATION_ANNOTATION = "sched-bench.io/run-duration"
# The job a pod belongs to when the load test creates the pods itself (bench_pod_creation=direct): no Job owns them.
JOB_LABEL = "sched-bench.io/job"

KWOK_TAINT_KEY = "kwok.x-k8s.io/node"
KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node"

# YuniKorn's gangs (yunikorn-k8shim v1.6 pkg/common/constants): a pod's task group, the application's task groups
# (on each pod, the first one seen defines them) and its scheduling parameters; the shim creates a placeholder pod
# per member, annotated as such, and swaps each for a real pod.
YUNIKORN_TASK_GROUP_NAME = "yunikorn.apache.org/task-group-name"
YUNIKORN_TASK_GROUPS = "yunikorn.apache.org/task-groups"
YUNIKORN_POLICY_PARAMETERS = "yunikorn.apache.org/schedulingPolicyParameters"
# The one task group of a gang job: all its pods, alike.
YUNIKORN_GANG_TASK_GROUP = "gang"
# Hard: a gang whose placeholders are not all placed in time fails instead of falling back to pod-by-pod placement.
YUNIKORN_GANG_STYLE = "gangSchedulingStyle=Hard"
# scheduler-plugins' PodGroup label.
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
# spec.managedBy of the calibration's Jobs: the job controller (Kubernetes 1.32 and later) leaves them alone.
CALIBRATION_MANAGER = "sched-bench.io/calibration"
# The calibration's binding probe: its pods' scheduler name (served by no scheduler) and the node they are bound to
# (none of that name exists).
BINDING_PROBE_SCHEDULER = "sched-bench-binding-probe"
BINDING_PROBE_NODE = "sched-bench-binding-probe"
# Volcano's scheduler groups pods by this annotation (volcano.sh/apis scheduling/v1beta1 KubeGroupNameAnnotationKey);
# its PodGroup controller leaves a pod that has it alone instead of making a one-pod group for it.
VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"

# The custom resources a workload creates: api name -> (group, version, plural).
CUSTOM_APIS = {
    "volcano": ("batch.volcano.sh", "v1alpha1", "jobs"),
    "podgroup": ("scheduling.x-k8s.io", "v1alpha1", "podgroups"),
    "volcano-podgroup": ("scheduling.volcano.sh", "v1beta1", "podgroups"),
}

# The cluster-scoped objects of a scenario (cluster_objects): api name -> (group, version, plural).
CLUSTER_APIS = {
    "priorityclass": ("scheduling.k8s.io", "v1", "priorityclasses"),
    "volcano-queue": ("scheduling.volcano.sh", "v1beta1", "queues"),
    "kueue-clusterqueue": ("kueue.x-k8s.io", "v1beta1", "clusterqueues"),
    "kueue-priorityclass": ("kueue.x-k8s.io", "v1beta1", "workloadpriorityclasses"),
}
# The cluster-scoped queues a scheduler refuses jobs into until their status.state is Open (Volcano's).
QUEUES_TO_OPEN = ("volcano-queue",)
# The namespaced objects of a scenario, made in the test's namespace with the cluster-scoped ones.
SCENARIO_NAMESPACED_APIS = {"kueue-localqueue": ("kueue.x-k8s.io", "v1beta1", "localqueues")}

# Where the objects go: the scheduler under test, the test's namespace and the run's label value.
Target = namedtuple("Target", "scheduler namespace run_label")

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
        # The scenario's jobs replace the workload's: its biggest must fit the nodes and the queues.
        work = job_work(max(expand(params["scenario"]), key=lambda job: job["pods_per_job"] * job["pod_millicores"]),
                        dict(work, **params["scenario"]["cluster"]))
    problems = (workload_problems(work)
                or pod_creation_problems(work["pod_creation"], [params["scheduler"]], "workload.%s"))
    if not problems and work["arrival"] != "open-loop":
        scenario = params.get("scenario")
        problems = arrival_problems(work["arrival"], jobs=expand(scenario) if scenario else None,
                                    scenario_name=(scenario or {}).get("name"), label="workload.%s")
    return (problems or [None])[0]


def plurals(api_resource_list):
    """Kind to resource name for the namespaced resources of an APIResourceList (discovery of one group version)."""
    return {
        resource["kind"]: resource["name"]
        for resource in api_resource_list.get("resources") or []
        if resource.get("namespaced") and "/" not in resource.get("name", "")
    }


def node_name(prefix, index):
    return "%s%d" % (prefix, index)


def job_name(index):
    return "job-%05d" % index


def fake_node(name, target, work):
    """A Node that kwok manages: labelled type=kwok, tainted, with the workload's node capacity."""
    resources = {"cpu": work["node_cpu"], "memory": work["node_memory"], "pods": str(work["node_pods"])}
    labels = {
        "type": "kwok",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        ROLE_LABEL: "fake-node",
    }
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


def _pod_template(target, work, scheduler_name=None, extra_labels=None, priority_class=None):
    labels = dict(_own_labels(target), app="sched-bench")
    labels.update(extra_labels or {})
    requests = {"cpu": work["pod_cpu"], "memory": work["pod_memory"]}
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


# A scenario's Job does not fail when the scheduler preempts one of its pods (the pod then has the DisruptionTarget
# condition): its controller makes a replacement, as a batch user's Job would ask.
PREEMPTION_IS_NO_FAILURE = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}


def _batch_job(name, target, work, template, job_labels=None, suspend=False, scenario=False):
    labels = _own_labels(target)
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


def _own_labels(target):
    labels = {ROLE_LABEL: "load"}
    if target.run_label:
        labels[RUN_LABEL] = target.run_label
    return labels


def calibration_job(index, target, work):
    """Job ``index`` of the calibration's create probe: the default scheduler's Job, suspended and managed by
    nobody (spec.managedBy), so that no controller writes its status or events and no pod is created: only the
    API server's create path is measured."""
    job = _batch_job(job_name(index), target, work, _pod_template(target, work), suspend=True)
    job["spec"]["managedBy"] = CALIBRATION_MANAGER
    return [("batch", job)]


def binding_probe_pod(name, target, work):
    """A pod of the calibration's binding probe: the default scheduler's pod template with a scheduler name nobody
    serves, so that only the probe binds it, to BINDING_PROBE_NODE, a node that does not exist, so that neither
    kwok nor a kubelet acts on it."""
    template = _pod_template(target, work, scheduler_name=BINDING_PROBE_SCHEDULER)
    return {"apiVersion": "v1", "kind": "Pod", "spec": template["spec"],
            "metadata": dict(template["metadata"], name=name, namespace=target.namespace)}


def binding(pod, node):
    """The pods/binding request that puts ``pod`` on ``node``."""
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": pod},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node}}


def _pod_group(name, target, native):
    """coscheduling's PodGroup of one job: its pods are placed all together or not at all."""
    return ("podgroup", {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": target.namespace, "labels": _own_labels(target)},
        "spec": {"minMember": native.min_member},
    })


def _volcano_pod_group(name, target, work, native):
    """Volcano's PodGroup of one job, as its job controller makes one for a vcjob: the gang's size, its queue and
    the gang's quota usage, what the enqueue action weighs against the queue (Kubernetes' usage of a pod: its
    requests, limits, which equal them here, and the pod counts)."""
    pods = native.min_member
    cpu = format_cpu(pods * millicores(work["pod_cpu"]))
    memory = format_memory(pods * size_bytes(work["pod_memory"]))
    return ("volcano-podgroup", {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": target.namespace, "labels": _own_labels(target)},
        "spec": dict({
            "minMember": native.min_member,
            "queue": native.queue,
            "minResources": {"cpu": cpu, "requests.cpu": cpu, "limits.cpu": cpu, "memory": memory,
                             "requests.memory": memory, "limits.memory": memory, "pods": str(pods),
                             "count/pods": str(pods)},
        }, **_priority_field(native)),
    })


def _scheduler_pod_template(name, target, work, native):
    """The pod template of job ``name`` for the scheduler under test, whoever creates the pods."""
    scheduler = target.scheduler
    priority_class = native.priority_class
    pod_scheduler_name = descriptors.get(scheduler)["pod_scheduler_name"]
    if scheduler in ("default", "kueue"):
        # Kueue's priority is the Job's WorkloadPriorityClass label; its pods keep the default priority.
        return _pod_template(target, work, priority_class=priority_class if scheduler == "default" else None)
    if scheduler == "yunikorn":
        # One YuniKorn application per job, in its tenant's queue; a gang job's pods form one task group.
        template = _pod_template(target, work, scheduler_name=pod_scheduler_name, priority_class=priority_class,
                                 extra_labels={"applicationId": "%s-%s" % (target.namespace, name), "queue": native.queue})
        if native.gang:
            template["metadata"]["annotations"].update(yunikorn_gang_annotations(template["spec"], native.min_member))
        return template
    if scheduler == "coscheduling":
        return _pod_template(target, work, scheduler_name=pod_scheduler_name,
                             extra_labels={POD_GROUP_LABEL: name}, priority_class=priority_class)
    if scheduler == "volcano":
        return _pod_template(target, work, scheduler_name=pod_scheduler_name, priority_class=priority_class)
    raise ValueError("unknown scheduler %r" % scheduler)


def pod_name(job, index):
    return "%s-%d" % (job, index)


def _direct_pods(name, target, work, native):
    """The pods of job ``name`` as the load test creates them itself: the job's pod template, its name in
    JOB_LABEL, and for Volcano the annotation that puts a pod in its PodGroup."""
    template = _scheduler_pod_template(name, target, work, native)
    template["metadata"]["labels"][JOB_LABEL] = name
    if target.scheduler == "volcano":
        template["metadata"]["annotations"][VOLCANO_GROUP_ANNOTATION] = name
    pods = []
    for index in range(work["pods_per_job"]):
        pod = copy.deepcopy(template)
        pod["metadata"].update(name=pod_name(name, index), namespace=target.namespace)
        pods.append(("pod", dict(pod, apiVersion="v1", kind="Pod")))
    return pods


def workload(index, target, work, job=None):
    """The objects to create for job ``index`` of the workload ``work`` for ``target``, in creation order.

    Returns a list of ``(api, body)``, where api is ``batch``, ``pod`` or a key of CUSTOM_APIS. A group (a
    PodGroup) comes first: a pod that names a missing group is not scheduled (Volcano's webhook refuses it).
    With work["pod_creation"] ``direct`` the job is its pods, created here, with no Job object. ``job``: a job of a
    scenario (sched_scenarios.expand), which gives the name, the pods and their native form (scenario_native);
    without one, job ``index`` of the burst of ``work`` (sched_scenarios.burst), the same job its expansion gives.
    """
    job = job or burst_job(index, work)
    name = job["name"]
    work = job_work(job, work)
    native = scenario_native(job, target.scheduler, work)
    scheduler = target.scheduler
    groups = []
    if scheduler == "coscheduling":
        groups = [_pod_group(name, target, native)]
    if work["pod_creation"] == DIRECT:
        refused = pod_creation_problems(DIRECT, [scheduler], "workload.%s")
        if refused:
            raise ValueError(refused[0])
        if scheduler == "volcano":
            groups = [_volcano_pod_group(name, target, work, native)]
        return groups + _direct_pods(name, target, work, native)
    template = _scheduler_pod_template(name, target, work, native)
    if scheduler == "kueue":
        labels = {"kueue.x-k8s.io/queue-name": native.queue}
        if native.priority_class:
            labels["kueue.x-k8s.io/priority-class"] = native.priority_class
        return [("batch", _batch_job(name, target, work, template, job_labels=labels, suspend=True,
                                     scenario=not job.get("burst")))]
    if scheduler == "volcano":
        return [("volcano", {
            "apiVersion": "batch.volcano.sh/v1alpha1",
            "kind": "Job",
            "metadata": {"name": name, "namespace": target.namespace, "labels": _own_labels(target)},
            "spec": dict({
                "minAvailable": native.min_member,
                "schedulerName": descriptors.get(scheduler)["pod_scheduler_name"],
                "queue": native.queue,
                "tasks": [{"name": "task", "replicas": work["pods_per_job"], "template": template}],
            }, **_priority_field(native)),
        })]
    return groups + [("batch", _batch_job(name, target, work, template, scenario=not job.get("burst")))]


# -- scenarios (module_utils/sched_scenarios.py): each scheduler's native form of tenants, priorities and gangs --

# What each scheduler expresses natively of a scenario's features (sched_scenarios.THRESHOLDS' second items), as
# this toolkit builds it: its descriptor's features. The default scheduler a PriorityClass (it preempts) but no
# gangs and no queues; Volcano a Queue per tenant with its weight, minAvailable and a PriorityClass; coscheduling a
# PodGroup per job and a PriorityClass (kube-scheduler's preemption); Kueue a ClusterQueue per tenant in one cohort
# with a nominal quota by weight, a LocalQueue for it and a WorkloadPriorityClass (it admits whole Jobs by quota,
# but without waitForPodsReady it does not place them all or nothing: no gang). YuniKorn (v1.6, its defaults
# otherwise): a queue per tenant under root guaranteed its weight's part of the queues' CPU, with the queues'
# capability as max (yunikorn_queues, in its yunikorn-configs at deploy time), a task group per gang job
# (placeholders reserve the whole gang first) and a PriorityClass: it orders a queue's applications by priority, but
# preempts only across queues (a pod waiting preemption.delay, 30 s, in a queue below its guarantee, victims of equal
# or lower priority in queues above theirs); within one queue, as with a single tenant, a high priority never
# preempts.
NATIVE_FEATURES = {name: tuple(descriptor["features"]) for name, descriptor in descriptors.DESCRIPTORS.items()}
KUEUE_COHORT = "sched-bench"
KUEUE_FLAVOR = "default"
PRIORITY_CLASS_PREFIX = "sched-bench-priority-"
VOLCANO_TENANT_QUEUE_PREFIX = "sched-bench-"

# A job's native form: its pods' PriorityClass (None: none), its queue (Volcano's Queue, Kueue's LocalQueue,
# YuniKorn's queue path), how many of its pods must be placed together (Volcano's minAvailable/minMember,
# coscheduling's minMember), and whether it is a scenario's gang the scheduler places whole (YuniKorn's task group).
Native = namedtuple("Native", "priority_class queue min_member gang")


def scenario_features(scenario, jobs):
    """The features of a scenario that a scheduler may or may not express: gang, fair_share, priority."""
    found = set()
    if any(job["gang"] for job in jobs):
        found.add("gang")
    if len(scenario["tenants"]) > 1:
        found.add("fair_share")
    if len({job["priority"] for job in jobs}) > 1:
        found.add("priority")
    return found


def unsupported(scheduler, features):
    """The features a scheduler cannot express (sorted), reported as such, never approximated."""
    return sorted(set(features) - set(NATIVE_FEATURES[scheduler]))


def priority_class_name(value):
    return "%s%d" % (PRIORITY_CLASS_PREFIX, value)


def volcano_queue_name(tenant):
    """A tenant's queue: Volcano's Queue, Kueue's ClusterQueue and LocalQueue (prefixed: Volcano has a queue named
    default of its own)."""
    return VOLCANO_TENANT_QUEUE_PREFIX + tenant


def job_work(job, work):
    """The workload values of one scenario job: its pods' count, size and duration over the run's other values."""
    return dict(work, pods_per_job=job["pods_per_job"], pod_cpu=format_cpu(job["pod_millicores"]),
                pod_memory=format_memory(job["pod_memory_bytes"]), pod_duration=job["pod_duration"])


def yunikorn_queue_path(tenant):
    """A tenant's YuniKorn queue: the tenants' queue name (volcano_queue_name) under root."""
    return "root." + volcano_queue_name(tenant)


def _one_queue(scheduler):
    return descriptors.get(scheduler)["queue"]


def _tenant_queue(scheduler, tenant):
    return yunikorn_queue_path(tenant) if scheduler == "yunikorn" else volcano_queue_name(tenant)


def scenario_native(job, scheduler, work):
    """The Native form of a job for a scheduler. A burst job (sched_scenarios.burst; None is one) has the seed's: no
    priority, the scheduler's one queue, every job a gang where the scheduler gangs by a count, no task group. A
    scenario job that is no gang needs one pod placed to start."""
    if job is None or job.get("burst"):
        return Native(None, _one_queue(scheduler), work["pods_per_job"], False)
    features = NATIVE_FEATURES[scheduler]
    return Native(priority_class_name(job["priority"]) if "priority" in features else None,
                  _tenant_queue(scheduler, job["tenant"]) if "fair_share" in features else _one_queue(scheduler),
                  job["pods_per_job"] if job["gang"] else 1,
                  bool(job["gang"]) and "gang" in features)


def yunikorn_gang_annotations(spec, members):
    """The annotations that make a job's pods (of pod ``spec``) one YuniKorn task group of ``members`` pods: the
    shim reserves room for all of them with placeholder pods (each of the pod's requests, on the nodes the pod may
    use: its node affinity and tolerations) before it places any, and swaps each placeholder for a real pod."""
    group = {"name": YUNIKORN_GANG_TASK_GROUP, "minMember": members,
             "minResource": dict(spec["containers"][0]["resources"]["requests"]),
             "affinity": copy.deepcopy(spec["affinity"]), "tolerations": copy.deepcopy(spec["tolerations"])}
    return {YUNIKORN_TASK_GROUP_NAME: YUNIKORN_GANG_TASK_GROUP,
            YUNIKORN_TASK_GROUPS: json.dumps([group], sort_keys=True, separators=(",", ":")),
            YUNIKORN_POLICY_PARAMETERS: YUNIKORN_GANG_STYLE}


# The annotations that mark a scheduler's placeholder pods (its stand-ins, no job's pods): descriptors' placeholder_annotations.
PLACEHOLDER_ANNOTATIONS = tuple(key for descriptor in descriptors.DESCRIPTORS.values()
                                for key in descriptor.get("placeholder_annotations") or ())


def is_placeholder(meta):
    """Whether pod metadata is a scheduler's placeholder's (its stand-in, not a job's pod)."""
    annotations = meta.get("annotations") or {}
    return any(annotations.get(key) == "true" for key in PLACEHOLDER_ANNOTATIONS)


def _priority_field(native):
    return {"priorityClassName": native.priority_class} if native.priority_class else {}


def _integer_weights(tenants):
    """Volcano's queue weights are whole numbers: the scenario's as they are when whole, else scaled so that the
    smallest is 100 (the ratios kept to a percent)."""
    weights = list(tenants.values())
    if all(float(weight).is_integer() for weight in weights):
        return {name: int(weight) for name, weight in tenants.items()}
    smallest = min(weights)
    return {name: max(1, int(round(weight * 100 / smallest))) for name, weight in tenants.items()}


def _quantity(number):
    """A weight as a Kubernetes quantity: 2 -> "2", 1.5 -> "1.5"."""
    return str(int(number)) if float(number).is_integer() else repr(float(number))


def tenant_quotas(tenants, capability):
    """Each tenant's weight's part of ``capability`` ({cpu, memory} quantities): {tenant: {"cpu": q, "memory": q}},
    Kueue's nominal quota; its CPU is YuniKorn's guaranteed vcore."""
    total = sum(tenants.values())
    return {tenant: {"cpu": format_cpu(millicores(capability["cpu"]) * weight / total),
                     "memory": format_memory(size_bytes(capability["memory"]) * weight / total)}
            for tenant, weight in tenants.items()}


def yunikorn_queues(scenario, capability):
    """The queues a scenario adds under YuniKorn's root (its queues.yaml, at deploy time): per tenant, in name order,
    its tenant queue with its weight's part of ``capability``'s CPU guaranteed (tenant_quotas) and ``capability`` as
    its max. None (the burst) adds none.

    Only the CPU is guaranteed, the resource a scenario's tenants divide: yunikorn-core v1.6 takes preemption victims
    only from a queue over its guarantee in every guaranteed resource, so a memory guarantee that CPU-bound pods never
    exceed would keep it from ever preempting (measured: docs/scenarios.md)."""
    if not scenario:
        return []
    quotas = tenant_quotas(scenario["tenants"], capability)
    limit = {"vcore": str(capability["cpu"]), "memory": str(capability["memory"])}
    return [{"name": volcano_queue_name(tenant), "submitacl": "*", "resources": {
        "guaranteed": {"vcore": quotas[tenant]["cpu"]}, "max": dict(limit)}}
        for tenant in sorted(quotas)]


def _kueue_objects(scenario, jobs, target, capability, labels):
    """Kueue's form: a WorkloadPriorityClass per priority value, and per tenant a ClusterQueue in one cohort whose
    nominal quota is its weight's part of ``capability`` and whose fair-sharing weight is its weight (it may borrow
    the rest from the cohort, shared by weight: fairSharing is on in Kueue's configuration; a queue reclaims its own
    quota from borrowers, and within a queue a higher priority preempts a lower one) and a LocalQueue."""
    out = [("kueue-priorityclass", {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
        "metadata": {"name": priority_class_name(value), "labels": dict(labels)}, "value": value,
        "description": "sched-bench scenario %s" % scenario["name"],
    }) for value in sorted({job["priority"] for job in jobs})]
    quotas = tenant_quotas(scenario["tenants"], capability)
    for tenant in sorted(quotas):
        name = volcano_queue_name(tenant)
        out.append(("kueue-clusterqueue", {
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
            "metadata": {"name": name, "labels": dict(labels)},
            "spec": {
                "cohort": KUEUE_COHORT, "namespaceSelector": {}, "fairSharing": {"weight": _quantity(scenario["tenants"][tenant])},
                "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
                "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": [{"name": KUEUE_FLAVOR, "resources": [
                    {"name": "cpu", "nominalQuota": quotas[tenant]["cpu"]},
                    {"name": "memory", "nominalQuota": quotas[tenant]["memory"]},
                ]}]}],
            },
        }))
        out.append(("kueue-localqueue", {
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": target.namespace, "labels": dict(labels)},
            "spec": {"clusterQueue": name},
        }))
    return out


def cluster_objects(scenario, jobs, target, capability):
    """The cluster-scoped objects of a scenario for the scheduler under test, created before its jobs and deleted
    after them: a PriorityClass per priority value where the scheduler takes priorities, and for Volcano a Queue
    per tenant with its weight (reclaimable, so that a queue over its share gives back to the others) and the
    queues' ``capability`` ({cpu, memory}, bench_queue_quota); for Kueue, _kueue_objects. Returns
    ``[(api, body)]``; api is a key of CLUSTER_APIS or SCENARIO_NAMESPACED_APIS."""
    if scenario.get("burst"):
        return []    # the burst's jobs go to the queue the scheduler's deployment made (scenario_native)
    features = NATIVE_FEATURES[target.scheduler]
    out = []
    labels = dict(_own_labels(target), **{ROLE_LABEL: "scenario"})
    if target.scheduler == "kueue":
        return _kueue_objects(scenario, jobs, target, capability, labels)
    if "priority" in features:
        for value in sorted({job["priority"] for job in jobs}):
            out.append(("priorityclass", {
                "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                "metadata": {"name": priority_class_name(value), "labels": dict(labels)},
                "value": value, "globalDefault": False, "preemptionPolicy": "PreemptLowerPriority",
                "description": "sched-bench scenario %s" % scenario["name"],
            }))
    if target.scheduler == "volcano":
        for tenant, weight in sorted(_integer_weights(scenario["tenants"]).items()):
            out.append(("volcano-queue", {
                "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                "metadata": {"name": volcano_queue_name(tenant), "labels": dict(labels)},
                "spec": {"weight": weight, "reclaimable": True, "capability": dict(capability)},
            }))
    return out
