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
import re
from collections import namedtuple

try:
    from ansible.module_utils.sched_rules import (
        DIRECT,
        SCHEDULERS,
        format_cpu,
        format_memory,
        millicores,
        pod_creation_problems,
        size_bytes,
        workload_problems,
    )
except ImportError:  # imported from the project's own tools and tests, outside Ansible
    from sched_rules import (
        DIRECT,
        SCHEDULERS,
        format_cpu,
        format_memory,
        millicores,
        pod_creation_problems,
        size_bytes,
        workload_problems,
    )

# Our own label and annotation keys.
RUN_LABEL = "sched-bench.io/run"
ROLE_LABEL = "sched-bench.io/role"
DURATION_ANNOTATION = "sched-bench.io/run-duration"
# The job a pod belongs to when the load test creates the pods itself (bench_pod_creation=direct): no Job owns them.
JOB_LABEL = "sched-bench.io/job"

KWOK_TAINT_KEY = "kwok.x-k8s.io/node"
KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node"

KUEUE_LOCAL_QUEUE = "default-local-queue"
VOLCANO_QUEUE = "test-queue"
YUNIKORN_QUEUE = "root.sandbox"
# scheduler-plugins installed "as a second scheduler": its profile's name and the PodGroup label.
COSCHEDULING_SCHEDULER_NAME = "scheduler-plugins-scheduler"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
# spec.managedBy of the calibration's Jobs: the job controller (Kubernetes 1.32 and later) leaves them alone.
CALIBRATION_MANAGER = "sched-bench.io/calibration"
# Volcano's scheduler groups pods by this annotation (volcano.sh/apis scheduling/v1beta1 KubeGroupNameAnnotationKey);
# its PodGroup controller leaves a pod that has it alone instead of making a one-pod group for it.
VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"

# The custom resources a workload creates: api name -> (group, version, plural).
CUSTOM_APIS = {
    "volcano": ("batch.volcano.sh", "v1alpha1", "jobs"),
    "podgroup": ("scheduling.x-k8s.io", "v1alpha1", "podgroups"),
    "volcano-podgroup": ("scheduling.volcano.sh", "v1beta1", "podgroups"),
}

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
    return (workload_problems(params["workload"])
            or pod_creation_problems(params["workload"]["pod_creation"], [params["scheduler"]], "workload.%s")
            or [None])[0]


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


def _pod_template(target, work, scheduler_name=None, extra_labels=None):
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
    return {
        "metadata": {
            "labels": labels,
            "annotations": {DURATION_ANNOTATION: "%gs" % work["pod_duration"]},
        },
        "spec": spec,
    }


def _batch_job(name, target, work, template, job_labels=None, suspend=False):
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


def _pod_group(name, target, work):
    """coscheduling's PodGroup of one job: its pods are placed all together or not at all."""
    return ("podgroup", {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": target.namespace, "labels": _own_labels(target)},
        "spec": {"minMember": work["pods_per_job"]},
    })


def _volcano_pod_group(name, target, work):
    """Volcano's PodGroup of one job, as its job controller makes one for a vcjob: the gang's size, its queue and
    the gang's quota usage, what the enqueue action weighs against the queue (Kubernetes' usage of a pod: its
    requests, limits, which equal them here, and the pod counts)."""
    pods = work["pods_per_job"]
    cpu = format_cpu(pods * millicores(work["pod_cpu"]))
    memory = format_memory(pods * size_bytes(work["pod_memory"]))
    return ("volcano-podgroup", {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": target.namespace, "labels": _own_labels(target)},
        "spec": {
            "minMember": pods,
            "queue": VOLCANO_QUEUE,
            "minResources": {"cpu": cpu, "requests.cpu": cpu, "limits.cpu": cpu, "memory": memory,
                             "requests.memory": memory, "limits.memory": memory, "pods": str(pods),
                             "count/pods": str(pods)},
        },
    })


def _scheduler_pod_template(name, target, work):
    """The pod template of job ``name`` for the scheduler under test, whoever creates the pods."""
    scheduler = target.scheduler
    if scheduler in ("default", "kueue"):
        return _pod_template(target, work)
    if scheduler == "yunikorn":
        # One YuniKorn application per job.
        return _pod_template(target, work, scheduler_name="yunikorn",
                             extra_labels={"applicationId": "%s-%s" % (target.namespace, name), "queue": YUNIKORN_QUEUE})
    if scheduler == "coscheduling":
        return _pod_template(target, work, scheduler_name=COSCHEDULING_SCHEDULER_NAME,
                             extra_labels={POD_GROUP_LABEL: name})
    if scheduler == "volcano":
        return _pod_template(target, work, scheduler_name="volcano")
    raise ValueError("unknown scheduler %r" % scheduler)


def pod_name(job, index):
    return "%s-%d" % (job, index)


def _direct_pods(name, target, work):
    """The pods of job ``name`` as the load test creates them itself: the job's pod template, its name in
    JOB_LABEL, and for Volcano the annotation that puts a pod in its PodGroup."""
    template = _scheduler_pod_template(name, target, work)
    template["metadata"]["labels"][JOB_LABEL] = name
    if target.scheduler == "volcano":
        template["metadata"]["annotations"][VOLCANO_GROUP_ANNOTATION] = name
    pods = []
    for index in range(work["pods_per_job"]):
        pod = copy.deepcopy(template)
        pod["metadata"].update(name=pod_name(name, index), namespace=target.namespace)
        pods.append(("pod", dict(pod, apiVersion="v1", kind="Pod")))
    return pods


def workload(index, target, work):
    """The objects to create for job ``index`` of the workload ``work`` for ``target``, in creation order.

    Returns a list of ``(api, body)``, where api is ``batch``, ``pod`` or a key of CUSTOM_APIS. A group (a
    PodGroup) comes first: a pod that names a missing group is not scheduled (Volcano's webhook refuses it).
    With work["pod_creation"] ``direct`` the job is its pods, created here, with no Job object.
    """
    name = job_name(index)
    scheduler = target.scheduler
    groups = []
    if scheduler == "coscheduling":
        groups = [_pod_group(name, target, work)]
    if work["pod_creation"] == DIRECT:
        refused = pod_creation_problems(DIRECT, [scheduler], "workload.%s")
        if refused:
            raise ValueError(refused[0])
        if scheduler == "volcano":
            groups = [_volcano_pod_group(name, target, work)]
        return groups + _direct_pods(name, target, work)
    template = _scheduler_pod_template(name, target, work)
    if scheduler == "kueue":
        return [("batch", _batch_job(name, target, work, template,
                                     job_labels={"kueue.x-k8s.io/queue-name": KUEUE_LOCAL_QUEUE}, suspend=True))]
    if scheduler == "volcano":
        return [("volcano", {
            "apiVersion": "batch.volcano.sh/v1alpha1",
            "kind": "Job",
            "metadata": {"name": name, "namespace": target.namespace, "labels": _own_labels(target)},
            "spec": {
                "minAvailable": work["pods_per_job"],
                "schedulerName": "volcano",
                "queue": VOLCANO_QUEUE,
                "tasks": [{"name": "task", "replicas": work["pods_per_job"], "template": template}],
            },
        })]
    return groups + [("batch", _batch_job(name, target, work, template))]
