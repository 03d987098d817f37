# -*- coding: utf-8 -*-
"""The default scheduler: the control plane's own kube-scheduler, the baseline every other one is compared with.

A scheduler descriptor (docs/adding-a-scheduler.md says what each key means). Data only: the load-test module, the
play's filters and the roles all read it.
"""
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
    # bench_arrival=backlog (module_utils/sched_hold.py): its process is stopped until the release.
    "hold": {"processes": ("kube-scheduler",)},
    "ready": "kube-scheduler's /healthz (binary); the kind node's own control plane (kind)",
}
