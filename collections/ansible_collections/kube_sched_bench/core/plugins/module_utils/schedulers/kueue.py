# -*- coding: utf-8 -*-
"""Kueue: a job queueing controller that admits whole Jobs by quota; kube-scheduler still binds their pods.

A scheduler's own file (docs/adding-a-scheduler.md): its descriptor and its workload forms. A job is a batch Job
created suspended with its LocalQueue's name (and its WorkloadPriorityClass's) in its labels; a scenario gives each
tenant a ClusterQueue in one cohort with a nominal quota by weight and a LocalQueue for it, and a
WorkloadPriorityClass per priority value (it admits whole Jobs by quota but, without waitForPodsReady, does not place
them all or nothing: no gang). A scenario whose groups ask for a topology gets Topology-Aware Scheduling: a
Topology, a flavor that names it, the pod sets' topology annotations, and ClusterQueues without cohort nor preemption
(its descriptor's topology). It takes no pods the load test makes itself (its descriptor's direct_pods).
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import (
    FAKE_NODE_ROLE,
    ROLE_LABEL,
    base_pod_template,
    batch_job,
    priority_class_name,
    quantity,
    tenant_queue_name,
    tenant_quotas,
    topology_key,
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
    # Topology-Aware Scheduling (v0.10: Topology is v1alpha1): a scenario whose groups ask for a topology.
    "kueue-topology": ("kueue.x-k8s.io", "v1alpha1", "topologies"),
    "kueue-resourceflavor": ("kueue.x-k8s.io", "v1beta1", "resourceflavors"),
}
SCENARIO_NAMESPACED_APIS = {"kueue-localqueue": ("kueue.x-k8s.io", "v1beta1", "localqueues")}
# A scenario's Topology (its levels' node labels from the top, then each node's hostname, as upstream's sample has it:
# TAS then assigns each pod a node and checks the nodes' taints) and the ResourceFlavor that names it, for the pod sets
# that ask for a topology: on v0.10 a pod set with a topology request takes only a flavor with a topologyName, and
# one without only a flavor without (pkg/scheduler/flavorassigner/tas_flavorassigner.go). Its nodeLabels (which a
# flavor with a topologyName must have) select the fake nodes by our role label, not by type=kwok: Kueue matches a pod
# set's node affinity against every flavor of its resource group on the keys of their nodeLabels, so type would make
# the default flavor, which has none, refuse our pods ("flavor default doesn't match node affinity").
TOPOLOGY = "sched-bench"
TOPOLOGY_FLAVOR = "sched-bench-topology"
HOSTNAME_LEVEL = "kubernetes.io/hostname"
TOPOLOGY_NODE_LABELS = {ROLE_LABEL: FAKE_NODE_ROLE}
# The pod template's annotations of a pod set's topology request (apis/kueue/v1alpha1/tas_types.go), by the kind of
# a scenario group's topology.
TOPOLOGY_ANNOTATIONS = {"required": "kueue.x-k8s.io/podset-required-topology",
                        "preferred": "kueue.x-k8s.io/podset-preferred-topology"}
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
    # bench_scheduler_profile=batch: waitForPodsReady goes into its manager configuration (kueue-config.yaml.j2),
    # preemption into the burst's ClusterQueue (kueue-objects.yaml.j2); a scenario's ClusterQueues have that
    # preemption under every profile (cluster_objects). docs/runtimes-and-schedulers.md lists them.
    "profiles": {"batch": {
        "waitForPodsReady": {
            "value": {"enable": True, "blockAdmission": True, "timeout": "10m",
                      "requeuingStrategy": {"timestamp": "Eviction"}},
            "source": "https://kueue.sigs.k8s.io/docs/tasks/manage/setup_wait_for_pods_ready/",
            "what": "all or nothing: an admitted Job must have all its pods ready within the timeout or it is evicted and "
                    "requeued, and no other Job is admitted while one waits for its pods",
        },
        "preemption": {
            "value": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
            "source": "https://kueue.sigs.k8s.io/docs/concepts/preemption/",
            "what": "the burst's ClusterQueue lets a Job preempt Jobs of lower priority in it and reclaim its quota from "
                    "any borrower of its cohort, as a scenario's ClusterQueues do",
        },
    }},
    # A scenario group's topology: Topology-Aware Scheduling, alpha in v0.10 and off by default, so its feature gate
    # is turned on (roles/scheduler/tasks/kueue/binary.yml) only for a scenario that asks for a topology: with it Kueue
    # tracks every node and pod. v0.10 keeps a ClusterQueue with a TAS flavor inactive while it is in a cohort or
    # preempts within itself (pkg/cache/clusterqueue.go), so such a scenario's ClusterQueues have neither.
    "topology": {
        "mechanism": "topology-aware-scheduling",
        "source": "https://kueue.sigs.k8s.io/docs/concepts/topology_aware_scheduling/",
        "feature_gates": {"TopologyAwareScheduling": True},
        "gives_up": {
            "fair_share": "v0.10 keeps a ClusterQueue with a topology flavor inactive in a cohort: each tenant has its "
                          "own quota, borrowing nothing",
            "priority": "v0.10 keeps a ClusterQueue with a topology flavor inactive while it preempts: a higher priority "
                        "is admitted first but evicts nothing",
        },
    },
    "ready": "the manager's /readyz and its webhook's TLS port (binary); the release's Deployment, webhook "
             "Service endpoints and certificate Secret (kind); then the ClusterQueue is active",
}


def pod_template(name, target, work, native):
    """The pod template of job ``name``: kube-scheduler binds its pods; its priority is the Job's
    WorkloadPriorityClass label, and its pods keep the default priority; its group's topology is its pod set's
    topology request (TOPOLOGY_ANNOTATIONS: the level's node label)."""
    template = base_pod_template(target, work)
    for kind, level in (work.get("job_topology") or {}).items():
        template["metadata"]["annotations"][TOPOLOGY_ANNOTATIONS[kind]] = topology_key(level)
    return template


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
    LocalQueue. When a job asks for a topology: first the Topology and its flavor (topology_objects), and each
    ClusterQueue has the topology flavor, then the default one (for the jobs that ask for none), each with the quota,
    and no cohort, fair-sharing weight nor preemption (v0.10 keeps it inactive otherwise: the descriptor's
    topology.gives_up)."""
    topology = any(job.get("topology") for job in jobs)
    out = topology_objects(scenario, labels) if topology else []
    out += [("kueue-priorityclass", {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass",
        "metadata": {"name": priority_class_name(value), "labels": dict(labels)}, "value": value,
        "description": "sched-bench scenario %s" % scenario["name"],
    }) for value in sorted({job["priority"] for job in jobs})]
    quotas = tenant_quotas(scenario["tenants"], capability)
    for tenant in sorted(quotas):
        name = tenant_queue_name(tenant)
        flavors = [{"name": flavor, "resources": [{"name": resource, "nominalQuota": quota}
                                                  for resource, quota in quotas[tenant].items()]}
                   for flavor in ((TOPOLOGY_FLAVOR, FLAVOR) if topology else (FLAVOR,))]
        sharing = {} if topology else {
            "cohort": COHORT, "fairSharing": {"weight": quantity(scenario["tenants"][tenant])},
            "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"}}
        out.append(("kueue-clusterqueue", {
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
            "metadata": {"name": name, "labels": dict(labels)},
            "spec": dict(sharing, namespaceSelector={},
                         resourceGroups=[{"coveredResources": list(quotas[tenant]), "flavors": flavors}]),
        }))
        out.append(("kueue-localqueue", {
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": target.namespace, "labels": dict(labels)},
            "spec": {"clusterQueue": name},
        }))
    return out


def topology_objects(scenario, labels):
    """A scenario's Topology (TOPOLOGY: its levels' node labels from the top, then HOSTNAME_LEVEL) and the
    ResourceFlavor that names it (TOPOLOGY_FLAVOR, with TOPOLOGY_NODE_LABELS), labelled ``labels``."""
    levels = [topology_key(level["name"]) for level in scenario["cluster"]["topology"]["levels"]] + [HOSTNAME_LEVEL]
    return [("kueue-topology", {
        "apiVersion": "kueue.x-k8s.io/v1alpha1", "kind": "Topology", "metadata": {"name": TOPOLOGY, "labels": dict(labels)},
        "spec": {"levels": [{"nodeLabel": label} for label in levels]},
    }), ("kueue-resourceflavor", {
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor",
        "metadata": {"name": TOPOLOGY_FLAVOR, "labels": dict(labels)},
        "spec": {"nodeLabels": dict(TOPOLOGY_NODE_LABELS), "topologyName": TOPOLOGY},
    })]
