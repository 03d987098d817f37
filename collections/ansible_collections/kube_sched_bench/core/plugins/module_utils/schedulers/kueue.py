# -*- coding: utf-8 -*-
"""Kueue: a job queueing controller that admits whole Jobs by quota; kube-scheduler still binds their pods.

A scheduler's own file (docs/adding-a-scheduler.md): its descriptor and its workload forms. A job is a batch Job
created suspended with its LocalQueue's name (and its WorkloadPriorityClass's) in its labels; a scenario gives each
tenant a ClusterQueue in one cohort with a nominal quota by weight and a LocalQueue for it, and a
WorkloadPriorityClass per priority value (it admits whole Jobs by quota but, without waitForPodsReady, does not place
them all or nothing: no gang). It takes no pods the load test makes itself (its descriptor's direct_pods).
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import (
    base_pod_template,
    batch_job,
    priority_class_name,
    quantity,
    tenant_queue_name,
    tenant_quotas,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import views

# The scenario's ClusterQueues' cohort, and the flavor of their quotas (the one ResourceFlavor that
# roles/scheduler/tasks/kueue/init.yml makes).
COHORT = "sched-bench"
FLAVOR = "default"
# The objects of its scenarios (cluster_objects): api name -> (group, version, plural), cluster-scoped, and
# namespaced (made in the test's namespace with the cluster-scoped ones).
CLUSTER_APIS = {
    "kueue-clusterqueue": ("kueue.x-k8s.io", "v1beta1", "clusterqueues"),
    "kueue-priorityclass": ("kueue.x-k8s.io", "v1beta1", "workloadpriorityclasses"),
}
SCENARIO_NAMESPACED_APIS = {"kueue-localqueue": ("kueue.x-k8s.io", "v1beta1", "localqueues")}
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
DESCRIPTOR = {
    "name": "kueue",
    "version": "v0.10.1",
    "runtimes": ("binary", "kind"),
    "pod_scheduler_name": None,
    # The burst's LocalQueue (roles/scheduler/tasks/kueue/init.yml creates it with its ClusterQueue).
    "queue": "default-local-queue",
    "namespace": "kueue-system",
    # It admits whole Jobs by quota but, without waitForPodsReady, does not place them all or nothing: no gang.
    "features": ("fair_share", "priority"),
    "queue_quota": True,
    "whole_job": True,
    # A Job is created suspended; admission unsuspends it and only then does the job controller make its pods.
    "admission": "unsuspends the Job",
    "direct_pods": ("Kueue admits only the kinds of workload it is configured to manage, and its plain-pod "
                    "integration is off in its default configuration, so bare pods would bypass it; use "
                    "job-controller"),
    "build": {
        "module": "sigs.k8s.io/kueue",
        "commands": {"kueue": "sigs.k8s.io/kueue/cmd/kueue"},
        "version_vars": ["sigs.k8s.io/kueue/pkg/version.GitVersion"],
    },
    "release": {"manifest_url": "https://github.com/kubernetes-sigs/kueue/releases/download/{version}/manifests.yaml"},
    # Its own roles/scheduler/tasks/kueue/binary.yml starts its manager and the kube-scheduler that binds.
    "local": {
        "processes": ["kueue", "kube-scheduler"],
        "ports": ["kueue_webhook", "kueue_health", "kueue_metrics", "kueue_pprof"],
        "crds": ["config/components/crd/bases"],
        "namespace": True,
        "webhooks": {"manifest": "config/components/webhook/manifests.yaml", "port": "kueue_webhook",
                     "prefix": "kueue-"},
        "init": True,
        # Its manager's profile (admission), not the binding kube-scheduler's.
        "pprof": "kueue_pprof",
        "metrics": [{"process": "kueue", "port": "kueue_metrics", "path": "/metrics"}],
    },
    # bench_arrival=backlog: every ClusterQueue is set to stopPolicy Hold until the release (the manager and its
    # webhooks run on; kube-scheduler is never held). A Job then has its Workload and no pod: the backlog.
    # Its manager's admissions and reconciles, and the kube-scheduler that binds what it admits.
    "internals": {"kueue": [
        {"key": "admission_attempts", "view": "counts", "metric": "kueue_admission_attempts_total", "label": "result"},
        {"key": "admission_attempt_duration", "view": "histogram", "metric": "kueue_admission_attempt_duration_seconds",
         "unit_ms": views.SECONDS},
        {"key": "admission_wait", "view": "histogram", "metric": "kueue_admission_wait_time_seconds",
         "unit_ms": views.SECONDS},
    ] + views.CONTROLLER_RUNTIME, "kube-scheduler": views.KUBE_SCHEDULER},
    "hold": {"stop_policy": "kueue.x-k8s.io/v1beta1/clusterqueues", "backlog": "kueue.x-k8s.io/v1beta1/workloads"},
    "ready": "the manager's /readyz and its webhook's TLS port (binary); the release's Deployment, webhook "
             "Service endpoints and certificate Secret (kind); then the ClusterQueue is active",
}


def pod_template(name, target, work, native):
    """The pod template of job ``name``: kube-scheduler binds its pods; its priority is the Job's
    WorkloadPriorityClass label, and its pods keep the default priority."""
    return base_pod_template(target, work)


def job_objects(name, target, work, native, scenario):
    """Job ``name``: a batch Job created suspended, in its LocalQueue (the burst's or its tenant's), admitted by
    unsuspending it."""
    labels = {QUEUE_NAME_LABEL: native.queue}
    if native.priority_class:
        labels[PRIORITY_CLASS_LABEL] = native.priority_class
    return [("batch", batch_job(name, target, work, pod_template(name, target, work, native), job_labels=labels,
                                suspend=True, scenario=scenario))]


def tenant_queue(tenant):
    """A tenant's LocalQueue (and ClusterQueue)."""
    return tenant_queue_name(tenant)


def cluster_objects(scenario, jobs, target, capability, labels):
    """A WorkloadPriorityClass per priority value, and per tenant a ClusterQueue in one cohort whose nominal quota is
    its weight's part of ``capability`` (cpu, memory and the cluster's extended resources: a Job's pods that ask for
    a resource its ClusterQueue does not cover are never admitted) and whose fair-sharing weight is its weight (it
    may borrow the rest from the cohort, shared by weight: fairSharing is on in Kueue's configuration; a queue
    reclaims its own quota from borrowers, and within a queue a higher priority preempts a lower one) and a
    LocalQueue."""
    out = [("kueue-priorityclass", {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
        "metadata": {"name": priority_class_name(value), "labels": dict(labels)}, "value": value,
        "description": "sched-bench scenario %s" % scenario["name"],
    }) for value in sorted({job["priority"] for job in jobs})]
    quotas = tenant_quotas(scenario["tenants"], capability)
    for tenant in sorted(quotas):
        name = tenant_queue_name(tenant)
        out.append(("kueue-clusterqueue", {
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
            "metadata": {"name": name, "labels": dict(labels)},
            "spec": {
                "cohort": COHORT, "namespaceSelector": {}, "fairSharing": {"weight": quantity(scenario["tenants"][tenant])},
                "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
                "resourceGroups": [{"coveredResources": list(quotas[tenant]), "flavors": [{"name": FLAVOR, "resources": [
                    {"name": name, "nominalQuota": quota} for name, quota in quotas[tenant].items()]}]}],
            },
        }))
        out.append(("kueue-localqueue", {
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": target.namespace, "labels": dict(labels)},
            "spec": {"clusterQueue": name},
        }))
    return out
