# -*- coding: utf-8 -*-
"""Pure builders for the objects a load test creates, and checks of its options.

The fake nodes and the batch jobs follow the published comparison: nodes with
label type=kwok and the kwok taint; jobs of N pods that ask for a little CPU and
memory, tolerate the taint and "run" for a while through a kwok stage. Each
scheduler gets the job kind it is benchmarked with. No I/O here.
"""
from __future__ import annotations

import re

SCHEDULERS = ("default", "kueue", "volcano", "yunikorn", "coscheduling")
WAIT_FOR = ("bound", "completed")

# Our own label and annotation keys.
RUN_LABEL = "sched-bench.io/run"
ROLE_LABEL = "sched-bench.io/role"
DURATION_ANNOTATION = "sched-bench.io/run-duration"

KWOK_TAINT_KEY = "kwok.x-k8s.io/node"
KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node"

KUEUE_LOCAL_QUEUE = "default-local-queue"
VOLCANO_QUEUE = "test-queue"
YUNIKORN_QUEUE = "root.sandbox"
# scheduler-plugins installed "as a second scheduler": its profile's name and the PodGroup label.
COSCHEDULING_SCHEDULER_NAME = "scheduler-plugins-scheduler"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"

# The custom resources a workload creates: api name -> (group, version, plural).
CUSTOM_APIS = {
    "volcano": ("batch.volcano.sh", "v1alpha1", "jobs"),
    "podgroup": ("scheduling.x-k8s.io", "v1alpha1", "podgroups"),
}

_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")
_SUFFIX = {
    None: 1, "m": 0.001, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
    "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60,
}
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def parse_quantity(text):
    """Parse a Kubernetes resource quantity ("500m", "200Mi", "32") to a float."""
    match = _QUANTITY.match(str(text).strip())
    if not match:
        raise ValueError("not a Kubernetes quantity: %r" % (text,))
    return float(match.group(1)) * _SUFFIX[match.group(2)]


def validate(params):
    """Return the first problem with the load-test options as one sentence, or None.

    ``params`` is the module's parameter dict. Only pure checks: files and the
    cluster are checked by the caller afterwards.
    """
    if params["scheduler"] not in SCHEDULERS:
        return "scheduler must be one of %s, got %r" % (", ".join(SCHEDULERS), params["scheduler"])
    for name in ("nodes", "jobs", "pods_per_job", "node_pods", "concurrency", "burst"):
        if params[name] < 1:
            return "%s must be at least 1, got %r" % (name, params[name])
    for name in ("qps", "timeout"):
        if params[name] <= 0:
            return "%s must be greater than 0, got %r" % (name, params[name])
    if params["pod_duration"] < 0:
        return "pod_duration must be 0 or more seconds, got %r" % (params["pod_duration"],)
    if params["wait_for"] not in WAIT_FOR:
        return "wait_for must be one of %s, got %r" % (", ".join(WAIT_FOR), params["wait_for"])
    if not _DNS_LABEL.match(params["namespace"]) or len(params["namespace"]) > 63:
        return "namespace must be a DNS label (lower case letters, digits, '-'), got %r" % (params["namespace"],)
    if not _LABEL_VALUE.match(params["run_label"]) or len(params["run_label"]) > 63:
        return "run_label must be a valid label value (letters, digits, '-', '_', '.'), got %r" % (params["run_label"],)
    quantities = {}
    for name in ("node_cpu", "node_memory", "pod_cpu", "pod_memory"):
        try:
            quantities[name] = parse_quantity(params[name])
        except ValueError:
            return "%s must be a Kubernetes quantity such as 500m, 2, 200Mi or 1Gi, got %r" % (name, params[name])
        if quantities[name] <= 0:
            return "%s must be greater than 0, got %r" % (name, params[name])
    if quantities["pod_cpu"] > quantities["node_cpu"] or quantities["pod_memory"] > quantities["node_memory"]:
        return ("a pod (cpu %s, memory %s) does not fit any fake node (cpu %s, memory %s): "
                "lower pod_cpu/pod_memory or raise node_cpu/node_memory"
                % (params["pod_cpu"], params["pod_memory"], params["node_cpu"], params["node_memory"]))
    return None


def capacity_note(params):
    """A sentence when the fake nodes cannot hold every pod at once, else None."""
    per_node = min(
        parse_quantity(params["node_cpu"]) // parse_quantity(params["pod_cpu"]),
        parse_quantity(params["node_memory"]) // parse_quantity(params["pod_memory"]),
        params["node_pods"],
    )
    total = params["jobs"] * params["pods_per_job"]
    if per_node * params["nodes"] < total:
        return ("the fake nodes hold %d pods at once but the load has %d; pods wait for earlier ones to finish"
                % (per_node * params["nodes"], total))
    return None


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


def fake_node(name, params):
    """A Node that kwok manages: labelled type=kwok, tainted, with the given capacity."""
    resources = {"cpu": params["node_cpu"], "memory": params["node_memory"], "pods": str(params["node_pods"])}
    labels = {
        "type": "kwok",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        ROLE_LABEL: "fake-node",
    }
    if params["run_label"]:
        labels[RUN_LABEL] = params["run_label"]
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


def _pod_template(name, params, scheduler_name=None, extra_labels=None):
    labels = dict(_own_labels(params), app="sched-bench")
    labels.update(extra_labels or {})
    requests = {"cpu": params["pod_cpu"], "memory": params["pod_memory"]}
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
            "annotations": {DURATION_ANNOTATION: "%gs" % params["pod_duration"]},
        },
        "spec": spec,
    }


def _batch_job(name, params, template, job_labels=None, suspend=False):
    labels = _own_labels(params)
    labels.update(job_labels or {})
    spec = {
        "parallelism": params["pods_per_job"],
        "completions": params["pods_per_job"],
        "backoffLimit": 0,
        "template": template,
    }
    if suspend:
        spec["suspend"] = True
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": params["namespace"], "labels": labels},
        "spec": spec,
    }


def _own_labels(params):
    labels = {ROLE_LABEL: "load"}
    if params["run_label"]:
        labels[RUN_LABEL] = params["run_label"]
    return labels


def workload(index, params):
    """The objects to create for job ``index`` with the scheduler in ``params``, in creation order.

    Returns a list of ``(api, body)``, where api is ``batch`` or a key of CUSTOM_APIS;
    the last object is the job itself.
    """
    name = job_name(index)
    scheduler = params["scheduler"]
    if scheduler == "default":
        return [("batch", _batch_job(name, params, _pod_template(name, params)))]
    if scheduler == "kueue":
        return [("batch", _batch_job(
            name, params, _pod_template(name, params),
            job_labels={"kueue.x-k8s.io/queue-name": KUEUE_LOCAL_QUEUE}, suspend=True))]
    if scheduler == "yunikorn":
        template = _pod_template(name, params, scheduler_name="yunikorn",
                                 extra_labels={"applicationId": "%s-%s" % (params["namespace"], name),
                                               "queue": YUNIKORN_QUEUE})
        return [("batch", _batch_job(name, params, template))]
    if scheduler == "coscheduling":
        # The PodGroup first: a pod that names a missing group is not scheduled.
        pod_group = {
            "apiVersion": "scheduling.x-k8s.io/v1alpha1",
            "kind": "PodGroup",
            "metadata": {"name": name, "namespace": params["namespace"], "labels": _own_labels(params)},
            "spec": {"minMember": params["pods_per_job"]},
        }
        template = _pod_template(name, params, scheduler_name=COSCHEDULING_SCHEDULER_NAME,
                                 extra_labels={POD_GROUP_LABEL: name})
        return [("podgroup", pod_group), ("batch", _batch_job(name, params, template))]
    if scheduler == "volcano":
        return [("volcano", {
            "apiVersion": "batch.volcano.sh/v1alpha1",
            "kind": "Job",
            "metadata": {"name": name, "namespace": params["namespace"], "labels": _own_labels(params)},
            "spec": {
                "minAvailable": params["pods_per_job"],
                "schedulerName": "volcano",
                "queue": VOLCANO_QUEUE,
                "tasks": [{
                    "name": "task",
                    "replicas": params["pods_per_job"],
                    "template": _pod_template(name, params, scheduler_name="volcano"),
                }],
            },
        })]
    raise ValueError("unknown scheduler %r" % scheduler)
