# -*- coding: utf-8 -*-
"""Kueue: a job queueing controller that admits whole Jobs by quota; kube-scheduler still binds their pods.

A scheduler descriptor (docs/adding-a-scheduler.md). Data only.
"""
DESCRIPTOR = {
    "name": "kueue",
    "version": "v0.10.1",
    "runtimes": ("binary", "kind"),
    "pod_scheduler_name": None,
    # The burst's LocalQueue (roles/scheduler/tasks/kueue-init.yml creates it with its ClusterQueue).
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
    # bench_arrival=backlog: every ClusterQueue is set to stopPolicy Hold until the release (the manager and its
    # webhooks run on; kube-scheduler is never held). A Job then has its Workload and no pod: the backlog.
    "hold": {"stop_policy": "kueue.x-k8s.io/v1beta1/clusterqueues", "backlog": "kueue.x-k8s.io/v1beta1/workloads"},
    "ready": "the manager's /readyz and its webhook's TLS port (binary); the release's Deployment, webhook "
             "Service endpoints and certificate Secret (kind); then the ClusterQueue is active",
}
