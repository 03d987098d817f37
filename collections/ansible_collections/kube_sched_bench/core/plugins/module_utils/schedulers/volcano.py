# -*- coding: utf-8 -*-
"""Volcano: a batch system with its own scheduler, job kind (vcjob), queues and PodGroups.

A scheduler descriptor (docs/adding-a-scheduler.md). Data only.
"""
DESCRIPTOR = {
    "name": "volcano",
    # Refused by some module proxies: give a mirror first in golang_goproxy (docs/runtimes-and-schedulers.md).
    "version": "v1.11.0",
    "runtimes": ("binary", "kind"),
    "pod_scheduler_name": "volcano",
    # The burst's Queue (roles/scheduler/tasks/volcano-init.yml creates it).
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
    # bench_arrival=backlog: vc-scheduler is stopped until the release, its controller and webhooks run on. Its
    # controller makes a job's pods only once the scheduler enqueued its PodGroup, so the backlog is the PodGroups.
    "hold": {"processes": ("vc-scheduler",), "backlog": "scheduling.volcano.sh/v1beta1/podgroups"},
    "ready": "each process's health port and the webhook's TLS port (binary); the release's Deployments, webhook "
             "Service endpoints and certificate Secret (kind); then the burst's Queue is Open",
}
