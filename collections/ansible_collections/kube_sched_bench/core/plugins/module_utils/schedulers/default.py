# -*- coding: utf-8 -*-
"""The default scheduler: the control plane's own kube-scheduler, the baseline every other one is compared with.

A scheduler's own file (docs/adding-a-scheduler.md says what each key and each form means): its descriptor, which
the load-test module, the play's filters and the roles all read, and its workload forms, which the load test's
workloads.py calls: a batch Job per job, its pods with a PriorityClass in a scenario (kube-scheduler preempts), no
gangs and no queues.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import (
    base_pod_template,
    batch_job,
    direct_pods,
    job_topology_affinity,
    priority_classes,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers import views

DESCRIPTOR = {
    "name": "default",
    # None: the control plane's kube-scheduler, at the version set's kubernetes pin.
    "version": None,
    "runtimes": ("binary", "kind", "external"),
    # The pods' spec.schedulerName; None leaves the field out (default-scheduler).
    "pod_scheduler_name": None,
    "queue": None,
    "namespace": None,
    "features": ("priority",),
    "queue_quota": False,
    "whole_job": False,
    "admission": None,
    "direct_pods": "",
    "build": None,
    "release": None,
    # Its own roles/scheduler/tasks/default/binary.yml starts the control plane's kube-scheduler.
    "local": {"processes": ["kube-scheduler"]},
    # bench_arrival=backlog (module_utils/loadtest/hold.py): its process is stopped until the release.
    "hold": {"processes": ("kube-scheduler",)},
    # The series of its metrics that explain it (metrics/internals.py), by process.
    "internals": {"kube-scheduler": views.KUBE_SCHEDULER},
    # A scenario group's topology: pod affinity among the job's pods on the level's node label
    # (builders.job_topology_affinity), which kube-scheduler's InterPodAffinity plugin enforces.
    "topology": {"mechanism": "pod-affinity",
                 "source": "https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/"
                           "#inter-pod-affinity-and-anti-affinity"},
    "ready": "kube-scheduler's /healthz (binary); the kind node's own control plane (kind)",
}


def pod_template(name, target, work, native):
    """The pod template of job ``name``: the default scheduler's own (no spec.schedulerName), its group's topology as
    pod affinity among its pods."""
    return job_topology_affinity(name, base_pod_template(target, work, priority_class=native.priority_class), work)


def job_objects(name, target, work, native, scenario):
    """Job ``name`` when the job controller makes its pods: one batch Job."""
    return [("batch", batch_job(name, target, work, pod_template(name, target, work, native), scenario=scenario))]


def direct_objects(name, target, work, native):
    """Job ``name`` when the load test makes its pods: the pods alone."""
    return direct_pods(name, target, work, pod_template(name, target, work, native))


def cluster_objects(scenario, jobs, target, capability, labels):
    """A scenario's objects: a PriorityClass per priority value."""
    return priority_classes(scenario, jobs, labels)
