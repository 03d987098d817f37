# -*- coding: utf-8 -*-
"""What a run writes on a host and on the controller, in MiB, path by path: the needs that bench_disk_space checks
against each file system's free space (module_utils/host/disk.py). The per-pod figures are the preflight role's
(preflight_disk_*, measured in docs/measurements.md#disk-space); no I/O here."""
from __future__ import annotations

import math


def _mb(value):
    return int(math.ceil(value))


def results_mb(pods, runs, figures, with_audit_log):
    """What ``runs`` load tests of ``pods`` pods leave as results: each run's files, and its compressed audit log
    where it is kept (on the host always, on the controller with bench_fetch_audit_log)."""
    per_run = figures["results_base_mb"] + pods * figures["results_kb_per_pod"] / 1024
    if with_audit_log:
        per_run += pods * figures["audit_compressed_kb_per_pod"] / 1024
    return _mb(runs * per_run)


def disk_needs(workload, paths, figures, runtime="binary", runs=1, builds=0):
    """The host's needs: one cluster at a time (etcd's data and the audit log, removed with the cluster before
    the next scheduler's), every run's results, the builds still to do and, on kind, the images.

    ``workload``: bench_host_workload (pods, knobs). ``paths``: workspace, cache_dir and, on kind, docker_root.
    """
    pods, workload_knobs = int(workload["pods"]), workload["knobs"]
    workspace = paths["workspace"]
    needs = []
    if runtime != "external":
        on_kind = runtime == "kind"
        etcd = {"path": paths["docker_root"] if on_kind else workspace, "what": "etcd data", "lower": workload_knobs,
                "knob": "Docker's data-root" if on_kind else "bench_workspace",
                "mb": _mb(figures["etcd_base_mb"] + pods * figures["etcd_kb_per_pod"] / 1024)}
        audit = {"path": workspace, "what": "audit log", "knob": "bench_workspace", "lower": workload_knobs,
                 "mb": _mb(figures["audit_base_mb"] + pods * figures["audit_kb_per_pod"] / 1024)}
        needs += [etcd, audit]
    needs.append({"path": workspace, "what": "results of %d load test%s" % (runs, "" if runs == 1 else "s"),
                  "knob": "bench_workspace", "lower": workload_knobs,
                  "mb": results_mb(pods, runs, figures, with_audit_log=runtime != "external")})
    if builds:
        needs.append({"path": paths["cache_dir"], "what": "%d build%s" % (builds, "" if builds == 1 else "s"),
                      "knob": "bench_cache_dir", "mb": builds * int(figures["build_mb"])})
    if runtime == "kind":
        needs.append({"path": workspace, "what": "local registry", "knob": "bench_workspace",
                      "mb": int(figures["registry_mb"])})
        needs.append({"path": paths["docker_root"], "what": "kind's images", "knob": "Docker's data-root",
                      "mb": int(figures["kind_images_mb"])})
    return needs


def planned_builds(versions, runtime, built_schedulers):
    """The builds a run may do, as the prefixes of their directories in the cache's bin/ (the roles add the Go
    version and any source edits): kwok always, the control plane on binary, and there the schedulers that are
    built from source (``built_schedulers``)."""
    planned = ["kwok-%s" % versions["kwok"]]
    if runtime == "binary":
        planned.append("kubernetes-%s-etcd-%s" % (versions["kubernetes"], versions["etcd"]))
        planned += ["%s-%s" % (name, versions[name]) for name in built_schedulers if versions.get(name)]
    return planned


def builds_to_do(planned, built):
    """How many of the ``planned`` builds (``<name>-<version>`` prefixes of the cache's bin/ directories) the cache
    has not built yet (``built``: the names in bin/)."""
    return sum(1 for prefix in planned if not any(name.startswith(prefix + "-") for name in built))
