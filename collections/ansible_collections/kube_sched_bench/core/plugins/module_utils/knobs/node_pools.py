# -*- coding: utf-8 -*-
"""The fake nodes of a workload or a scenario's cluster as pools, in either form of docs/scenarios.md: one size
(nodes, node_cpu, node_memory, node_pods: one pool) or ``pools``, each with its count, CPU, memory, pod slots,
extended resources and labels. Everything that counts the cluster's room reads it here. No I/O here.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.quantities import millicores, size_bytes

# The extended resource a scenario's pods ask for with pod_gpu.
GPU = "nvidia.com/gpu"
# The cluster keys of the pools form (and of a topology) that are no workload knob: the load test reads them from
# the scenario; summary.json's workload leaves them out.
SHAPE_KEYS = ("pools", "topology")
# The one pool of the one-size form.
ONE_SIZE_POOL = "nodes"


def pools(cluster):
    """The cluster's pools in order: {name, count, cpu, memory, pods, resources, labels}; the one-size form is one
    pool without extended resources or labels."""
    if cluster.get("pools"):
        return cluster["pools"]
    return [{"name": ONE_SIZE_POOL, "count": int(cluster["nodes"]), "cpu": cluster["node_cpu"],
             "memory": cluster["node_memory"], "pods": int(cluster["node_pods"]), "resources": {}, "labels": {}}]


def extended_totals(cluster):
    """Each extended resource's count over all fake nodes, by name (empty for the one-size form)."""
    out = {}
    for pool in pools(cluster):
        for name, count in sorted(pool["resources"].items()):
            out[name] = out.get(name, 0) + pool["count"] * int(count)
    return out


def totals(cluster):
    """The fake nodes' sums: nodes, millicores, memory_bytes, pods and the extended resources (extended_totals)."""
    found = pools(cluster)
    return {"nodes": sum(pool["count"] for pool in found),
            "millicores": sum(pool["count"] * millicores(pool["cpu"]) for pool in found),
            "memory_bytes": sum(pool["count"] * size_bytes(pool["memory"]) for pool in found),
            "pods": sum(pool["count"] * int(pool["pods"]) for pool in found),
            "resources": extended_totals(cluster)}


def pod_room(pool, millicores_, memory_bytes, gpu=0, used=(0, 0, 0, 0)):
    """How many pods of that size (CPU millicores, memory bytes, GPUs) one node of ``pool`` holds, or still holds
    with ``used`` of it taken (millicores, memory bytes, pods, GPUs)."""
    room = min((millicores(pool["cpu"]) - used[0]) // millicores_, (size_bytes(pool["memory"]) - used[1]) // memory_bytes,
               int(pool["pods"]) - used[2])
    if gpu:
        room = min(room, (int(pool["resources"].get(GPU, 0)) - used[3]) // int(gpu))
    return max(0, room)


def lowest_groups(levels):
    """How many groups the lowest of a topology's ``levels`` (from the top, each a count per group above) has."""
    groups = 1
    for level in levels:
        groups *= level["count"]
    return groups
