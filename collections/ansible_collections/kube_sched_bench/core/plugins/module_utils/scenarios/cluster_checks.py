# -*- coding: utf-8 -*-
"""The checks of a scenario's ``cluster``: one size of fake node (nodes, node_cpu, node_memory, node_pods) or pools
of them, and their topology (docs/scenarios.md#node-pools-and-topology). ``cluster`` takes checks.py's checker and
says one sentence per problem, naming the field and its line. No I/O here.
"""
from __future__ import annotations

import re

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import node_pools
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.node_pools import lowest_groups
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.quantities import millicores, size_bytes
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import COUNT, QUANTITY
from ansible_collections.kube_sched_bench.core.plugins.module_utils.objects.builders import ROLE_LABEL, topology_key, topology_labels
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.field_rules import NAME, SCENARIO_POD_FIELDS

CLUSTER_FIELDS = {"nodes": COUNT, "node_cpu": QUANTITY, "node_memory": QUANTITY, "node_pods": COUNT}
POOL_FIELDS = {"name": NAME, "count": COUNT, "cpu": QUANTITY, "memory": QUANTITY, "pods": COUNT}
POOL_KEYS = tuple(POOL_FIELDS) + ("resources", "labels")
LEVEL_FIELDS = {"name": NAME, "count": COUNT}

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")
# The domains of the labels and resources Kubernetes and this toolkit set on a node themselves.
_RESERVED_DOMAINS = ("kubernetes.io", "k8s.io", ROLE_LABEL.split("/")[0])
RESOURCE_RULE = ("use an extended resource: a domain, '/' and a name, such as nvidia.com/gpu, outside %s"
                 % " and ".join(_RESERVED_DOMAINS))
LABEL_KEY_RULE = ("use a label key: an optional domain and '/', then at most 63 letters, digits, '-', '_' or '.', "
                  "not type nor in %s (the toolkit sets those)" % " or ".join(_RESERVED_DOMAINS))
LABEL_VALUE_RULE = "use a label value: a string of at most 63 letters, digits, '-', '_' or '.' (quote a number)"
MAX_LABEL = 63


def _reserved(domain):
    return any(domain == name or domain.endswith("." + name) for name in _RESERVED_DOMAINS)


def _qualified(key, need_domain):
    """Whether ``key`` is [domain/]name as Kubernetes allows it, the domain outside the reserved ones."""
    if not isinstance(key, str):
        return False
    domain, _, name = key.rpartition("/")
    if (need_domain or "/" in key) and not (domain and len(domain) <= 253 and _DNS_SUBDOMAIN.match(domain)):
        return False
    return len(name) <= MAX_LABEL and bool(_LABEL_NAME.match(name)) and not (domain and _reserved(domain))


def _is_label_value(value):
    return isinstance(value, str) and len(value) <= MAX_LABEL and bool(_LABEL_VALUE.match(value))


def cluster(check, doc):
    """The checked cluster: the one-size form as given, or {nodes (the sum), pools}; with ``topology`` when it has
    one. None (said) when anything in it is not allowed."""
    found = check.mapping(doc.get("cluster"), "cluster", doc.key_lines.get("cluster", 1),
                          tuple(CLUSTER_FIELDS) + ("pools", "topology"))
    if found is None:
        return None
    if "pools" in found:
        both = [name for name in CLUSTER_FIELDS if name in found]
        for name in both:
            check.say(found.key_lines[name], "cluster.%s is not allowed with cluster.pools: each pool gives its count, "
                                             "cpu, memory and pods" % name)
        pools = _pools(check, found)
        out = None if both or pools is None else {"nodes": sum(pool["count"] for pool in pools), "pools": pools}
    else:
        out = {name: check.field(found, "cluster", name, rule) for name, rule in CLUSTER_FIELDS.items()}
        out = out if None not in out.values() else None
    if "topology" in found:
        topology = _topology(check, found, out)
        out = dict(out, topology=topology) if out and topology else None
    return out


def _pools(check, found):
    """The checked pools, or None (said)."""
    items = check.sequence(found["pools"], "cluster.pools", found.key_lines["pools"],
                           "pools (%s)" % ", ".join(POOL_KEYS))
    out, bad = [], items is None
    for index, pool in enumerate(items or ()):
        path, line = "cluster.pools[%d]" % index, items.item_lines[index]
        pool = check.mapping(pool, path, line, POOL_KEYS)
        if pool is None:
            bad = True
            continue
        values = {name: check.field(pool, path, name, rule) for name, rule in POOL_FIELDS.items()}
        values["resources"] = _resources(check, pool, path)
        values["labels"] = _labels(check, pool, path)
        bad = bad or None in values.values() or bool(set(pool) - set(POOL_KEYS))
        if values["name"] in [other["name"] for other in out]:
            check.say(pool.key_lines["name"], "%s.name=%r is not allowed: another pool has that name" % (path, values["name"]))
            bad = True
        out.append(values)
    return None if bad else out


def _free_mapping(check, owner, name, path, what):
    """``owner[name]``: a mapping of any keys, {} when absent, None (said) when not a mapping."""
    value = owner.get(name, {})
    if not isinstance(value, dict):
        check.say(owner.key_lines[name], "%s.%s=%r is not allowed: use a mapping of %s" % (path, name, value, what))
        return None
    return value


def _resources(check, pool, path):
    """A pool's extended resources: name -> count per node."""
    found = _free_mapping(check, pool, "resources", path, "extended resource names to counts per node")
    if found is None:
        return None
    out, bad = {}, False
    for key, count in found.items():
        where, line = "%s.resources.%s" % (path, key), found.key_lines[key]
        if not _qualified(key, need_domain=True):
            check.say(line, "%s is not allowed: %s" % (where, RESOURCE_RULE))
            bad = True
        elif isinstance(count, bool) or not isinstance(count, int) or count < 1:
            check.say(line, "%s=%r is not allowed: %s" % (where, count, COUNT[1]))
            bad = True
        else:
            out[key] = count
    return None if bad else out


def _labels(check, pool, path):
    """A pool's labels, on each of its nodes."""
    found = _free_mapping(check, pool, "labels", path, "label keys to values")
    if found is None:
        return None
    bad = False
    for key, value in found.items():
        where, line = "%s.labels.%s" % (path, key), found.key_lines[key]
        if key == "type" or not _qualified(key, need_domain=False):
            check.say(line, "%s is not allowed: %s" % (where, LABEL_KEY_RULE))
            bad = True
        elif not _is_label_value(value):
            check.say(line, "%s=%r is not allowed: %s" % (where, value, LABEL_VALUE_RULE))
            bad = True
    return None if bad else dict(found)


def _topology(check, found, out):
    """{levels: [{name, count}]} from the top, or None (said): unique names, labels no longer than a label value,
    and as many nodes in each group of the lowest level."""
    line = found.key_lines["topology"]
    topology = check.mapping(found["topology"], "cluster.topology", line, ("levels",))
    if topology is None:
        return None
    items = check.sequence(topology.get("levels"), "cluster.topology.levels", topology.key_lines.get("levels", line),
                           "levels from the top (name, count)")
    levels, bad = [], items is None
    for index, level in enumerate(items or ()):
        path = "cluster.topology.levels[%d]" % index
        level = check.mapping(level, path, items.item_lines[index], tuple(LEVEL_FIELDS))
        values = {name: check.field(level, path, name, rule) for name, rule in LEVEL_FIELDS.items()} if level else {}
        if not level or None in values.values() or set(level) - set(LEVEL_FIELDS):
            bad = True
        elif values["name"] in [other["name"] for other in levels]:
            check.say(level.key_lines["name"], "%s.name=%r is not allowed: another level has that name" % (path, values["name"]))
            bad = True
        elif values["name"] in SCENARIO_POD_FIELDS:
            check.say(level.key_lines["name"], "%s.name=%r is not allowed: pods.csv has a column of that name (use "
                      "another, such as rack or block)" % (path, values["name"]))
            bad = True
        else:
            levels.append(values)
    if bad:
        return None
    return _even(check, line, levels, out)


def _even(check, line, levels, out):
    """``levels`` when their labels fit a label value and the nodes divide evenly among the lowest level's groups."""
    value, groups = "-".join("%s-%d" % (level["name"], level["count"]) for level in levels), lowest_groups(levels)
    if len(value) > MAX_LABEL:
        check.say(line, "cluster.topology is not allowed: its labels, such as %s, would be longer than %d characters: "
                        "use shorter level names" % (value, MAX_LABEL))
        return None
    if out and out["nodes"] % groups:
        check.say(line, "cluster.topology is not allowed: its %d groups of level %s do not divide the %d fake nodes "
                        "evenly: use a node count that is a multiple of %d" % (groups, levels[-1]["name"], out["nodes"],
                                                                                groups))
        return None
    return {"levels": levels}


def topology_problem(cluster):
    """A sentence when a (scaled) cluster's nodes do not divide evenly among its topology's lowest groups, else None."""
    groups = lowest_groups((cluster.get("topology") or {}).get("levels") or ())
    if cluster["nodes"] % groups:
        return "it leaves %d fake nodes, which do not divide evenly among the topology's %d groups of level %s" % (
            cluster["nodes"], groups, cluster["topology"]["levels"][-1]["name"])
    return None


# A job group's topology: exactly one of these keys, its value a level of the cluster's topology.
GROUP_TOPOLOGY_KINDS = ("required", "preferred")


def group_topology(check, group, path, cluster):
    """A job group's ``topology`` ({required: level} or {preferred: level}: its jobs' pods in one domain of that level
    of cluster.topology, or preferably so), or None (said when not allowed, or absent)."""
    line, where = group.key_lines.get("topology", group.line), path + ".topology"
    found = check.mapping(group["topology"], where, line, GROUP_TOPOLOGY_KINDS)
    if found is None or cluster is None:
        return None
    kinds = [kind for kind in GROUP_TOPOLOGY_KINDS if kind in found]
    if len(kinds) != 1:
        if not set(found) - set(GROUP_TOPOLOGY_KINDS):
            check.say(line, "%s is not allowed: give exactly one of %s" % (where, ", ".join(GROUP_TOPOLOGY_KINDS)))
        return None
    levels = [level["name"] for level in (cluster.get("topology") or {}).get("levels") or ()]
    if not levels:
        check.say(line, "%s is not allowed: the scenario's cluster has no topology (give cluster.topology.levels)" % where)
        return None
    kind, value = kinds[0], found[kinds[0]]
    if value not in levels:
        check.say(found.key_lines[kind], "%s.%s=%r is not allowed: use a level of cluster.topology (%s)" % (
            where, kind, value, ", ".join(levels)))
        return None
    return {kind: value}


def domain_room(cluster, level, job):
    """How many pods of ``job``'s size (pod_cpu, pod_memory, pod_gpu) the roomiest domain of topology ``level`` holds at
    once: the nodes dealt to each domain as the fake nodes are (builders.topology_labels)."""
    levels, found = cluster["topology"]["levels"], node_pools.pools(cluster)
    total, rooms, start = sum(pool["count"] for pool in found), {}, 0
    for pool in found:
        room = node_pools.pod_room(pool, millicores(job["pod_cpu"]), size_bytes(job["pod_memory"]), job.get("pod_gpu") or 0)
        for index in range(start, start + pool["count"]):
            domain = topology_labels(levels, index, total)[topology_key(level)]
            rooms[domain] = rooms.get(domain, 0) + room
        start += pool["count"]
    return max(rooms.values())


def topology_fit_problem(cluster, job):
    """Why a job that requires one domain of a level can never be placed (more pods than any domain holds), or None."""
    level = (job.get("topology") or {}).get("required")
    if not level:
        return None
    room = domain_room(cluster, level, job)
    if room >= job["pods_per_job"]:
        return None
    return "a job of %d pods that requires one %s is not allowed: a %s holds only %d such pods at once" % (
        job["pods_per_job"], level, level, room)
