# -*- coding: utf-8 -*-
"""The binary runtime: etcd, kube-apiserver, kube-controller-manager, kwok and the schedulers as the toolkit's own
processes on the host, built from their Go modules at the version set's pins; no Docker.

A runtime's own file (module_utils/runtimes/__init__.py says what each key means); its task files are
playbooks/tasks/runtimes/binary/.
"""
from __future__ import annotations

DESCRIPTOR = {
    "name": "binary",
    # Its ports come from bench_port_range_*: checked free before anything starts.
    "entries": ("check",),
    "local_control_plane": True,
    "scheduler_needs": "build",
    "holds_backlog": True,
    "configures_kube_scheduler": True,
    "scheduler_profiles": True,
    "host_audit_log": True,
    "kept_cluster_kubectl": True,
    "disk": {"etcd": "workspace", "images": ()},
    "guard_commands": (),
    "guard_defaults": {},
}
