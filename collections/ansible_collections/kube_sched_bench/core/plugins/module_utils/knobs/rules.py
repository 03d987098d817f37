# -*- coding: utf-8 -*-
"""The one table of rules for the benchmark's values, and the workload description.

The play checks every ``bench_<name>`` with these rules before anything changes
(filter_plugins/bench_checks.py); the load-test module checks its ``workload``
option with the same rules, naming ``workload.<name>``. The workload is the
subset of names in WORKLOAD: one dict, built once by the bench role from the
``bench_*`` variables and passed whole to the module and into summary.json.
No I/O here.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import node_pools
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.quantities import (
    format_cpu,
    format_memory,
    parse_quantity,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.table import BOOLEANS, BY_NAME, KNOBS, names

RUNTIMES = BY_NAME["runtime"].rule
WAIT_FOR = BY_NAME["wait_for"].rule
# bench_pod_creation: who creates a job's pods, its controller (the job controller, or the scheduler's own for its
# job kind) or the load test itself, as the upstream scheduler benchmark does.
POD_CREATIONS = BY_NAME["pod_creation"].rule
JOB_CONTROLLER, DIRECT = POD_CREATIONS

# Kinds of rule: (Python type of the value, what is allowed, as the second half of a sentence).
COUNT = (int, "use a whole number of at least 1")
POSITIVE = (float, "use a number greater than 0")
SECONDS = (float, "use seconds, 0 or more")
QUANTITY = (str, "use a Kubernetes quantity greater than 0 such as 500m, 2, 200Mi")
QUEUE_QUOTA = (dict, "use seed, cluster, or {cpu: <quantity>, memory: <quantity>} such as {cpu: 500, memory: 500Gi}")
FLAG = (bool, "use true or false")
PERCENT = (float, "use a percentage from 0 to 100")
WHOLE_PERCENT = (int, "use a whole percentage from 0 to 100")

# A fake node's size in the workload: a scenario whose cluster has pools leaves them None (node_pools.pools).
NODE_SIZES = ("node_cpu", "node_memory", "node_pods")

# bench_queue_quota: the CPU and memory of the queues of the schedulers with queues (descriptors' queue_quota).
# seed: the published comparison's; cluster: the fake nodes' allocatable, what the default scheduler can use.
SEED_QUEUE_QUOTA = {"cpu": "1000", "memory": "1000Gi"}
QUEUE_QUOTA_NAMES = ("seed", "cluster")

# The kinds of rule by the name the knob table (module_utils/knobs/table.py) gives them.
KINDS = {"count": COUNT, "positive": POSITIVE, "seconds": SECONDS, "quantity": QUANTITY, "queue_quota": QUEUE_QUOTA,
         "flag": FLAG, "percent": PERCENT, "whole_percent": WHOLE_PERCENT}


def _rule(knob):
    if isinstance(knob.rule, tuple):
        return knob.rule
    if knob.rule == "optional_count":  # a whole number where 0 switches the feature off
        return (int, knob.allowed)
    return KINDS[knob.rule]


# name (without bench_) -> rule; a tuple of strings is a choice.
RULES = {knob.name: _rule(knob) for knob in KNOBS if knob.name in names("ruled")}

# The workload description: what the load test creates and how it loads the API server.
WORKLOAD = names("workload")


def boolean(value):
    """True or False from a switch (BOOLEANS); KeyError or TypeError for anything else."""
    return BOOLEANS[value.lower() if isinstance(value, str) else value]


def as_number(value, kind):
    """``value`` as ``kind`` (int or float); ValueError for a switch, or a fraction where a whole number is asked."""
    if isinstance(value, bool):
        raise ValueError
    if kind is int:
        if isinstance(value, float) and not value.is_integer():
            raise ValueError
        return int(str(value).strip()) if not isinstance(value, (int, float)) else int(value)
    return float(value)


def rule_problem(rule, value):
    """None when ``value`` passes ``rule`` (a kind of rule above, or a choice), else what is allowed."""
    if isinstance(rule[0], str):
        return None if value in rule else "use one of %s" % ", ".join(rule)
    kind, allowed = rule
    if rule is QUEUE_QUOTA:
        return None if _queue_quota_ok(value) else allowed
    try:
        if rule is FLAG:
            boolean(value)
            ok = True
        elif rule is QUANTITY:
            ok = parse_quantity(value) > 0
        else:
            number = as_number(value, kind)
            ok = number > 0 if rule is POSITIVE else number >= (1 if rule is COUNT else 0)
            ok = ok and (rule not in (PERCENT, WHOLE_PERCENT) or number <= 100)
    except (KeyError, TypeError, ValueError):
        ok = False
    return None if ok else allowed


def _queue_quota_ok(value):
    if value in QUEUE_QUOTA_NAMES:
        return True
    if not isinstance(value, dict) or sorted(value) != ["cpu", "memory"]:
        return False
    return all(rule_problem(QUANTITY, str(value[name])) is None for name in ("cpu", "memory"))


def problems(values, label="%s", names=None):
    """One sentence per value that breaks its rule, then the cross checks, in a fixed order.

    ``values`` maps unprefixed names to values (missing names are skipped); ``label`` turns a name into
    what the user wrote (``bench_%s`` for the play, ``workload.%s`` for the module). A workload of pools has no one
    node size (NODE_SIZES None): the cross checks that need one are skipped.
    """
    out, bad = [], set()
    for name in names or RULES:
        if name in NODE_SIZES and values.get(name) is None and values.get("pools"):
            bad.add(name)
        elif name in values:
            allowed = rule_problem(RULES[name], values[name])
            if allowed:
                bad.add(name)
                out.append("%s=%r is not allowed: %s" % (label % name, values[name], allowed))
    sizes = ("pod_cpu", "pod_memory", "node_cpu", "node_memory")
    if all(name in values and name not in bad for name in sizes):
        if (parse_quantity(values["pod_cpu"]) > parse_quantity(values["node_cpu"])
                or parse_quantity(values["pod_memory"]) > parse_quantity(values["node_memory"])):
            out.append("%s=%s/%s=%s is not allowed: a pod must fit a fake node (%s=%s, %s=%s)" % (
                label % "pod_cpu", values["pod_cpu"], label % "pod_memory", values["pod_memory"],
                label % "node_cpu", values["node_cpu"], label % "node_memory", values["node_memory"]))
    job = ("queue_quota", "nodes", "pods_per_job") + sizes
    if all(name in values and name not in bad for name in job) and not out:
        quota = queue_quota(values["queue_quota"], values)
        pods = as_number(values["pods_per_job"], int)
        if (parse_quantity(quota["cpu"]) < pods * parse_quantity(values["pod_cpu"])
                or parse_quantity(quota["memory"]) < pods * parse_quantity(values["pod_memory"])):
            out.append("%s=%s is not allowed: the queues would hold %s CPU and %s memory, less than one job of %d pods "
                       "of %s CPU and %s memory, so the schedulers that admit whole jobs would never admit one" % (
                           label % "queue_quota", values["queue_quota"], quota["cpu"], quota["memory"], pods,
                           values["pod_cpu"], values["pod_memory"]))
    return out


def workload_problems(workload):
    """The problems of the load test's ``workload`` option, named as the module's sub-options."""
    missing = [name for name in WORKLOAD if name not in (workload or {})]
    if missing:
        return ["workload lacks %s" % ", ".join(missing)]
    return problems(workload, "workload.%s", WORKLOAD)


def workload_options():
    """The ``workload`` option's sub-options for AnsibleModule, from the rules."""
    types = {int: "int", float: "float", str: "str", dict: "raw"}
    return {name: {"type": "str" if isinstance(RULES[name][0], str) else types[RULES[name][0]], "required": True}
            for name in WORKLOAD}


def queue_quota(spec, workload=None):
    """The queues' CPU and memory as quantities ({"cpu": "3200", "memory": "25Ti"}) for a bench_queue_quota value.

    ``cluster`` needs the workload's fake nodes (node_pools.pools); the value is assumed valid. The extended resources
    of the workload's pools (nvidia.com/gpu, ...), which bench_queue_quota does not set, are the whole cluster's.
    """
    if spec == "seed":
        out = dict(SEED_QUEUE_QUOTA)
    elif spec == "cluster":
        found = node_pools.totals(workload)
        out = {"cpu": format_cpu(found["millicores"]), "memory": format_memory(found["memory_bytes"])}
    else:
        out = {"cpu": str(spec["cpu"]), "memory": str(spec["memory"])}
    if workload and workload.get("pools"):
        out.update({name: str(count) for name, count in node_pools.extended_totals(workload).items()})
    return out
