# -*- coding: utf-8 -*-
"""What a run writes on a host and on the controller, in MiB, path by path: the needs that bench_disk_space checks
against each file system's free space (module_utils/host/disk.py). The per-pod figures are the preflight role's
(preflight_disk_*, measured in docs/measurements.md#disk-space); no I/O here."""
from __future__ import annotations

import math

from ansible_collections.kube_sched_bench.core.plugins.module_utils import runtimes


def _mb(value):
    return int(math.ceil(value))


def results_mb(pods, runs, figures, with_audit_log):
    """What ``runs`` load tests of ``pods`` pods leave as results: each run's files, and its compressed audit log
    where it is kept (on the host always, on the controller with bench_fetch_audit_log)."""
    per_run = figures["results_base_mb"] + pods * figures["results_kb_per_pod"] / 1024
    if with_audit_log:
        per_run += pods * figures["audit_compressed_kb_per_pod"] / 1024
    return _mb(runs * per_run)


# What to change to give a path key of a runtime's disk (module_utils/runtimes/) more room.
PATH_KNOBS = {"workspace": "bench_workspace", "cache_dir": "bench_cache_dir", "docker_root": "Docker's data-root"}


def disk_needs(workload, paths, figures, runtime, runs=1, builds=0):
    """The host's needs: one cluster at a time (etcd's data and the audit log where the runtime writes them, removed
    with the cluster before the next scheduler's), every run's results, the builds still to do and the runtime's
    images (its descriptor's disk).

    ``workload``: bench_host_workload (pods, knobs). ``paths``: workspace, cache_dir and docker_root.
    """
    pods, workload_knobs = int(workload["pods"]), workload["knobs"]
    workspace = paths["workspace"]
    descriptor = runtimes.get(runtime)
    etcd_path, audit_log = descriptor["disk"]["etcd"], descriptor["host_audit_log"]
    needs = []
    if etcd_path:
        needs.append({"path": paths[etcd_path], "what": "etcd data", "lower": workload_knobs,
                      "knob": PATH_KNOBS[etcd_path],
                      "mb": _mb(figures["etcd_base_mb"] + pods * figures["etcd_kb_per_pod"] / 1024)})
    if audit_log:
        needs.append({"path": workspace, "what": "audit log", "knob": "bench_workspace", "lower": workload_knobs,
                      "mb": _mb(figures["audit_base_mb"] + pods * figures["audit_kb_per_pod"] / 1024)})
    needs.append({"path": workspace, "what": "results of %d load test%s" % (runs, "" if runs == 1 else "s"),
                  "knob": "bench_workspace", "lower": workload_knobs,
                  "mb": results_mb(pods, runs, figures, with_audit_log=audit_log)})
    if builds:
        needs.append({"path": paths["cache_dir"], "what": "%d build%s" % (builds, "" if builds == 1 else "s"),
                      "knob": "bench_cache_dir", "mb": builds * int(figures["build_mb"])})
    needs += [{"path": paths[path], "what": what, "knob": PATH_KNOBS[path], "mb": int(figures[figure])}
              for path, what, figure in descriptor["disk"]["images"]]
    return needs


def planned_builds(versions, runtime, built_schedulers):
    """The builds a run may do, as the prefixes of their directories in the cache's bin/ (the roles add the Go
    version and any source edits): kwok always, the control plane where the runtime builds it, and the schedulers
    that are built from source (``built_schedulers``) where the runtime runs builds of them."""
    descriptor = runtimes.get(runtime)
    planned = ["kwok-%s" % versions["kwok"]]
    if descriptor["local_control_plane"]:
        planned.append("kubernetes-%s-etcd-%s" % (versions["kubernetes"], versions["etcd"]))
    if descriptor["scheduler_needs"] == "build":
        planned += ["%s-%s" % (name, versions[name]) for name in built_schedulers if versions.get(name)]
    return planned


def builds_to_do(planned, built):
    """How many of the ``planned`` builds (``<name>-<version>`` prefixes of the cache's bin/ directories) the cache
    has not built yet (``built``: the names in bin/)."""
    return sum(1 for prefix in planned if not any(name.startswith(prefix + "-") for name in built))
