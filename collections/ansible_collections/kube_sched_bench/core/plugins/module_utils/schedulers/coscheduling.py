# -*- coding: utf-8 -*-
"""coscheduling: scheduler-plugins' kube-scheduler with the Coscheduling plugin, gangs as PodGroups.

A scheduler's own file (docs/adding-a-scheduler.md): its descriptor and its workload forms. A job is a PodGroup
(its pods are placed all together or not at all) and then a batch Job, or the pods the load test makes itself, whose
label names the group; a scenario gangs a gang job's pods by minMember and gives a PriorityClass per priority value
(kube-scheduler's preemption). No queues.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import (
    base_pod_template,
    batch_job,
    direct_pods,
    job_topology_affinity,
    own_labels,
    priority_classes,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import views

# The objects of its jobs: api name -> (group, version, plural), namespaced.
CUSTOM_APIS = {"podgroup": ("scheduling.x-k8s.io", "v1alpha1", "podgroups")}
# scheduler-plugins' PodGroup label.
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
DESCRIPTOR = {
    "name": "coscheduling",
    # scheduler-plugins v0.32.x pairs with Kubernetes v1.32; refused by some module proxies (docs/runtimes-and-schedulers.md).
    "version": "v0.32.7",
    "runtimes": ("binary", "kind"),
    # Its profile's name, as upstream's "as a second scheduler" chart installs it.
    "pod_scheduler_name": "scheduler-plugins-scheduler",
    "queue": None,
    "namespace": "scheduler-plugins",
    "features": ("gang", "priority"),
    "queue_quota": False,
    "whole_job": True,
    "admission": None,
    "direct_pods": "",
    # The Coscheduling plugin's arguments, as upstream's chart sets them (a 10 s permit wait); the same on the binary
    # runtime (the profile) and on kind (the chart's values).
    "plugin_config": [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 10}}],
    "build": {
        "module": "sigs.k8s.io/scheduler-plugins",
        # kube-scheduler with the out-of-tree plugins and the controller that keeps PodGroup status.
        "commands": {
            "scheduler-plugins-scheduler": "sigs.k8s.io/scheduler-plugins/cmd/scheduler",
            "scheduler-plugins-controller": "sigs.k8s.io/scheduler-plugins/cmd/controller",
        },
        "version_vars": [],
        # Kubernetes' example modules, which its go.mod lists and the upstream replace directives pin at v0.32.7, a
        # version some module proxies refuse; no package of the build imports them, so an empty local module (only
        # its go.mod) stands in.
        "graph_only": ["k8s.io/sample-apiserver", "k8s.io/sample-cli-plugin", "k8s.io/sample-controller"],
    },
    # scheduler-plugins publishes its chart only inside its Go module.
    "release": {"chart": "as-a-second-scheduler", "chart_repository": "",
                "module_path": "manifests/install/charts/as-a-second-scheduler",
                # The chart's crds/ are links to these (PodGroup, ElasticQuota), which a module zip leaves out.
                "crd_path": "config/crd/bases"},
    # Its own roles/scheduler/tasks/coscheduling/binary.yml starts its kube-scheduler build (which records its
    # profile and metrics as kube-scheduler's) and the controller.
    "local": {
        "processes": ["scheduler-plugins-scheduler", "scheduler-plugins-controller"],
        "ports": ["coscheduling_controller_metrics", "coscheduling_controller_health"],
        "crds": ["config/crd/bases"],
        "metrics": [{"process": "scheduler-plugins-controller", "port": "coscheduling_controller_metrics",
                     "path": "/metrics"}],
    },
    # bench_arrival=backlog: the scheduler's process is stopped until the release; its PodGroup controller runs on.
    "internals": {"scheduler-plugins-scheduler": views.KUBE_SCHEDULER,
                  "scheduler-plugins-controller": views.CONTROLLER_RUNTIME},
    "hold": {"processes": ("scheduler-plugins-scheduler",)},
    # bench_scheduler_profile=batch: this plugin_config instead of the chart's (roles/scheduler/vars/main.yml's
    # scheduler_plugin_config). docs/runtimes-and-schedulers.md lists it.
    "profiles": {"batch": {
        "plugin_config": {
            "value": [{"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 60}}],
            "source": "https://github.com/kubernetes-sigs/scheduler-plugins/blob/v0.32.7/apis/config/v1/defaults.go",
            "what": "the plugin's own permit wait, 60 s, instead of the chart's 10 s: a gang's first pods wait longer at "
                    "Permit for the rest of the gang before all of them go back to the queue",
        },
    }},
    # A scenario group's topology: pod affinity among the job's pods on the level's node label
    # (builders.job_topology_affinity), which kube-scheduler's InterPodAffinity plugin enforces.
    "topology": {"mechanism": "pod-affinity",
                 "source": "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/"
                           "#inter-pod-affinity-and-anti-affinity"},
    "ready": "the scheduler's /healthz and the controller's /readyz (binary); the chart's Deployments (kind)",
}


def pod_group(name, target, native):
    """The PodGroup of one job: its pods are placed all together or not at all."""
    return ("podgroup", {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": target.namespace, "labels": own_labels(target)},
        "spec": {"minMember": native.min_member},
    })


def pod_template(name, target, work, native):
    """The pod template of job ``name``: its scheduler's pods, labelled with their PodGroup, its group's topology as
    pod affinity among its pods."""
    return job_topology_affinity(name, base_pod_template(target, work, scheduler_name=DESCRIPTOR["pod_scheduler_name"],
                                                         extra_labels={POD_GROUP_LABEL: name},
                                                         priority_class=native.priority_class), work)


def job_objects(name, target, work, native, scenario):
    """Job ``name``: its PodGroup first (a pod that names a missing group is not scheduled), then a batch Job."""
    return [pod_group(name, target, native),
            ("batch", batch_job(name, target, work, pod_template(name, target, work, native), scenario=scenario))]


def direct_objects(name, target, work, native):
    """Job ``name`` when the load test makes its pods: its PodGroup, then the pods."""
    return [pod_group(name, target, native)] + direct_pods(name, target, work, pod_template(name, target, work, native))


def cluster_objects(scenario, jobs, target, capability, labels):
    """A scenario's objects: a PriorityClass per priority value."""
    return priority_classes(scenario, jobs, labels)
