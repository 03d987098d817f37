# -*- coding: utf-8 -*-
"""The kind runtime: a kind cluster (the control plane in one Docker container, from the local registry's node
image) with kwok beside it as a local process; the schedulers are deployed as releases.

A runtime's own file (module_utils/runtimes/__init__.py says what each key means); its task files are
playbooks/tasks/runtimes/kind/.
"""
from __future__ import annotations

DESCRIPTOR = {
    "name": "kind",
    # check: the node's Kubernetes takes bench_controller_manager_job_syncs; prepare: Docker, Go, kind, kubectl and
    # the local registry; finish: the registry stops; teardown: the registry and the kind cluster go.
    "entries": ("check", "prepare", "finish", "teardown"),
    "local_control_plane": False,
    "scheduler_needs": "release",
    "holds_backlog": False,
    "configures_kube_scheduler": False,
    # Its releases' configurations are applied as they ship (their ConfigMaps): seed only.
    "scheduler_profiles": False,
    # A mount of the node container in the workspace.
    "host_audit_log": True,
    # Its prepare has installed kubectl.
    "kept_cluster_kubectl": False,
    # etcd's data is in the node container, under Docker's data-root.
    "disk": {"etcd": "docker_root", "images": (("workspace", "local registry", "registry_mb"),
                                               ("docker_root", "kind's images", "kind_images_mb"))},
    "guard_commands": (("{bench_workspace}/bin/kind", "delete", "cluster", "--name", "{kind_cluster_name}"),
                       ("docker", "rm", "-f", "{registry_container_name}")),
    # The kind_cluster and registry roles' defaults: the lock is taken before those roles are loaded.
    "guard_defaults": {"kind_cluster_name": "bench", "registry_container_name": "kind-registry"},
}
