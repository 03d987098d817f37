# -*- coding: utf-8 -*-
"""The external runtime: a cluster that is the user's (bench_external_kubeconfig), with kwok beside it as a local
process for the fake nodes; the toolkit neither stops nor removes the cluster, and reads no audit log of it.

A runtime's own file (module_utils/runtimes/__init__.py says what each key means); its task files are
playbooks/tasks/runtimes/external/.
"""
from __future__ import annotations

DESCRIPTOR = {
    "name": "external",
    # check: bench_external_kubeconfig is a kubeconfig on the host.
    "entries": ("check",),
    "local_control_plane": False,
    "scheduler_needs": None,
    "holds_backlog": False,
    "configures_kube_scheduler": False,
    "scheduler_profiles": False,
    "host_audit_log": False,
    "kept_cluster_kubectl": False,
    "disk": {"etcd": None, "images": ()},
    "guard_commands": (),
    "guard_defaults": {},
}
