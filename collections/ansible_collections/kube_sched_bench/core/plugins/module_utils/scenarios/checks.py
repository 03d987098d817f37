# -*- coding: utf-8 -*-
"""The checks of a scenario file: its fields and their rules, the YAML reader that keeps each value's line, and
``check_file``, which reads one file (and the trace files it names) into a scenario, one sentence per problem naming
the file, the line and the field. spec.py finds the file; the format is described in docs/scenarios.md.
"""
from __future__ import annotations

import csv
import os
import re

import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster.capacity import pods_at_once
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs import node_pools
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import (
    COUNT,
    POSITIVE,
    QUANTITY,
    SECONDS,
    problems,
    rule_problem,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios import cluster_checks
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.field_rules import (
    FLAG,
    FRACTION,
    GPUS,
    NAME,
    PRIORITY,
    SEED,
    TEXT,
)

ARRIVALS = ("at_once", "rate", "poisson", "trace")

# The promises a scenario may state (docs/scenarios.md, "Findings"): name -> (rule, the feature it is about).
THRESHOLDS = {
    "stuck_partial_s": (POSITIVE, "gang"),
    "stall_s": (POSITIVE, "gang"),
    "fairness_error": (FRACTION, "fair_share"),
    "high_priority_wait_s": (POSITIVE, "priority"),
    "latency_p99_ms": (POSITIVE, "steady"),
    "rate_shortfall": (FRACTION, "steady"),
    "peak_cpu_share": (FRACTION, "packing"),
}

CLUSTER_FIELDS = cluster_checks.CLUSTER_FIELDS
POD_FIELDS = {"pods_per_job": COUNT, "pod_cpu": QUANTITY, "pod_memory": QUANTITY, "pod_duration": SECONDS}
TRACE_COLUMNS = dict({"arrival_s": SECONDS}, **POD_FIELDS, tenant=NAME, priority=PRIORITY)
TOP_FIELDS = ("description", "cluster", "tenants", "warmup_s", "thresholds", "phases")
GROUP_FIELDS = ("name", "jobs", "tenant", "priority", "gang", "arrival") + tuple(POD_FIELDS) + ("pod_gpu", "topology")
ARRIVAL_FIELDS = {"at_once": (), "rate": ("jobs_per_s",), "poisson": ("jobs_per_s", "seed"), "trace": ("file",)}
MAX_TRACE_PROBLEMS = 10


class _Map(dict):
    """A YAML mapping that knows its own line and each key's line."""

    line = 0
    key_lines = None


class _Seq(list):
    """A YAML sequence that knows its own line and each item's line."""

    line = 0
    item_lines = None


class _Loader(yaml.SafeLoader):
    pass


def _construct_map(loader, node):
    loader.flatten_mapping(node)
    out = _Map()
    out.line, out.key_lines = node.start_mark.line + 1, {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise yaml.constructor.ConstructorError(None, None, "a key must be a plain value", key_node.start_mark)
        key = loader.construct_object(key_node)
        if key in out:
            raise yaml.constructor.ConstructorError(None, None, "%r appears twice" % (key,), key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = key_node.start_mark.line + 1
    return out


def _construct_seq(loader, node):
    out = _Seq(loader.construct_object(item, deep=True) for item in node.value)
    out.line, out.item_lines = node.start_mark.line + 1, [item.start_mark.line + 1 for item in node.value]
    return out


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def _normal(rule, value):
    """The value a rule passed, as the type the rule names."""
    kind = rule[0]
    if kind is int:
        return int(value.strip()) if isinstance(value, str) else int(value)
    if kind is float:
        return float(value)
    if kind is str:
        return str(value)
    return value


def _rule_problem(rule, value):
    if callable(rule[0]) and not isinstance(rule[0], type):
        return None if rule[0](value) else rule[1]
    return rule_problem(rule, value)


def _join(path, name):
    return "%s.%s" % (path, name) if path else name


class _Checker:
    """Collects one sentence per problem of one file: '<file> line <n>: <field>=<value> is not allowed: ...'."""

    def __init__(self, file):
        self.file = file
        self.said = []     # (line, sentence): sorted by line in the end
        self.after = []    # sentences about other files (a trace), after this file's

    def say(self, line, text):
        self.said.append((line, "%s line %d: %s" % (self.file, line, text)))

    @property
    def problems(self):
        return [text for _, text in sorted(self.said, key=lambda item: item[0])] + self.after

    def mapping(self, value, path, line, fields):
        """``value`` as a _Map with only known keys, or None (said) when it is not a mapping."""
        if not isinstance(value, _Map):
            self.say(line, "%s=%r is not allowed: use a mapping of %s" % (path, value, ", ".join(fields)))
            return None
        for key in value:
            if key not in fields:
                self.say(value.key_lines[key], "%s is not a field here: use %s" % (_join(path, key), ", ".join(fields)))
        return value

    def sequence(self, value, path, line, what):
        if not isinstance(value, _Seq) or not value:
            self.say(line, "%s=%r is not allowed: use a non-empty list of %s" % (path, value, what))
            return None
        return value

    def field(self, mapping, path, name, rule, default=None, required=True):
        """The checked and normalized value of ``mapping[name]``; None (said) when missing or not allowed."""
        if name not in mapping:
            if required:
                self.say(mapping.line, "%s lacks %s" % (path or "the scenario", name))
            return default
        value = mapping[name]
        allowed = _rule_problem(rule, value)
        if allowed:
            self.say(mapping.key_lines[name], "%s=%r is not allowed: %s" % (_join(path, name), value, allowed))
            return None
        return _normal(rule, value)


def check_file(path, shown):
    """(scenario, problems) of the scenario file at ``path``, named ``shown`` in the problems; the scenario, named by
    its file, is None unless problems is empty."""
    try:
        with open(path, "r", encoding="utf-8") as handle:
            document = yaml.load(handle, Loader=_Loader)  # _Loader is a SafeLoader
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = "line %d column %d" % (mark.line + 1, mark.column + 1) if mark else "(no position)"
        reason = " ".join(str(getattr(error, "problem", None) or error).split())
        return None, ["%s %s: does not parse as YAML: %s" % (shown, where, reason)]
    except (OSError, UnicodeDecodeError) as error:
        return None, ["%s cannot be read: %s" % (shown, error)]
    check = _Checker(shown)
    if not isinstance(document, _Map):
        return None, ["%s line 1: a scenario is a mapping of %s" % (shown, ", ".join(TOP_FIELDS))]
    scenario = _scenario(check, document, (os.path.dirname(path), os.path.dirname(shown)))
    scenario["name"] = os.path.splitext(os.path.basename(path))[0]
    return (None if check.problems else scenario), check.problems


def _scenario(check, doc, directory):
    check.mapping(doc, "", 1, TOP_FIELDS)
    description = check.field(doc, "", "description", TEXT)
    cluster = cluster_checks.cluster(check, doc)
    tenants = _tenants(check, doc)
    thresholds = {}
    found = check.mapping(doc.get("thresholds", _Map()), "thresholds", doc.key_lines.get("thresholds", 1), THRESHOLDS)
    for name in found or ():
        if name in THRESHOLDS:
            thresholds[name] = check.field(found, "thresholds", name, THRESHOLDS[name][0])
    phases = []
    for index, phase in enumerate(check.sequence(doc.get("phases"), "phases", doc.key_lines.get("phases", 1),
                                                 "phases (name, start_s, groups)") or ()):
        path = "phases[%d]" % index
        phase = check.mapping(phase, path, doc["phases"].item_lines[index], ("name", "start_s", "groups"))
        if phase is None:
            continue
        out = {"name": check.field(phase, path, "name", NAME), "start_s": check.field(phase, path, "start_s", SECONDS, 0.0, False),
               "groups": []}
        groups = check.sequence(phase.get("groups"), path + ".groups", phase.key_lines.get("groups", phase.line), "job groups")
        for number, group in enumerate(groups or ()):
            where = "%s.groups[%d]" % (path, number)
            group = check.mapping(group, where, groups.item_lines[number], GROUP_FIELDS)
            if group is not None:
                out["groups"].append(_group(check, group, where, tenants, cluster, directory))
        phases.append(out)
    groups = [group for phase in phases for group in phase["groups"]]
    _unique(check, [(group["name"], group["line"]) for group in groups], "job group")
    warmup_s = check.field(doc, "", "warmup_s", SECONDS, None, False)
    _promised_features(check, found, groups, tenants, warmup_s)
    return {"description": description, "cluster": cluster, "tenants": tenants, "thresholds": thresholds,
            "warmup_s": warmup_s, "phases": phases}


def _promised_features(check, thresholds, groups, tenants, warmup_s):
    """Say so for a threshold about something the scenario does not have (a fairness error with one tenant, ...)."""
    priorities = {row["priority"] for group in groups for row in (group.get("trace") or [group]) if "priority" in row}
    missing = {"gang": None if any(group["gang"] for group in groups) else "the scenario has no gang job group",
               "fair_share": None if len(tenants) > 1 else "the scenario has one tenant",
               "priority": None if len(priorities) > 1 else "every job has the same priority",
               "steady": None if warmup_s is not None else "the scenario has no warmup_s", "packing": None}
    for name in thresholds or ():
        if name in THRESHOLDS and missing[THRESHOLDS[name][1]]:
            check.say(thresholds.key_lines[name], "thresholds.%s is not allowed: %s" % (name, missing[THRESHOLDS[name][1]]))


def _tenants(check, doc):
    if "tenants" not in doc:
        return {"default": 1.0}
    tenants = {}
    items = check.sequence(doc["tenants"], "tenants", doc.key_lines["tenants"], "tenants (name, weight)") or ()
    for index, tenant in enumerate(items):
        path = "tenants[%d]" % index
        tenant = check.mapping(tenant, path, items.item_lines[index], ("name", "weight"))
        if tenant is not None:
            name, weight = check.field(tenant, path, "name", NAME), check.field(tenant, path, "weight", POSITIVE)
            if name in tenants:
                check.say(tenant.line, "%s.name=%r is not allowed: another tenant has that name" % (path, name))
            elif name is not None:
                tenants[name] = weight
    return tenants


def _unique(check, names, what):
    seen = set()
    for name, line in names:
        if name is not None and name in seen:
            check.say(line, "two %ss are named %r: give each its own name" % (what, name))
        seen.add(name)


def _group(check, group, path, tenants, cluster, directory):
    out = {"name": check.field(group, path, "name", NAME), "line": group.line,
           "gang": check.field(group, path, "gang", FLAG, False, False),
           "priority": check.field(group, path, "priority", PRIORITY, 0, False)}
    if "topology" in group:
        out["topology"] = cluster_checks.group_topology(check, group, path, cluster)
    arrival = check.mapping(group.get("arrival"), path + ".arrival", group.key_lines.get("arrival", group.line),
                            ("kind", "jobs_per_s", "seed", "file"))
    if arrival is None:
        return out
    kind = check.field(arrival, path + ".arrival", "kind", ARRIVALS)
    out["arrival"] = {"kind": kind}
    for name in ARRIVAL_FIELDS.get(kind, ()):
        rule = {"jobs_per_s": POSITIVE, "seed": SEED, "file": TEXT}[name]
        out["arrival"][name] = check.field(arrival, path + ".arrival", name, rule)
    for name in sorted(set(arrival) - {"kind"} - set(ARRIVAL_FIELDS.get(kind, tuple(arrival)))):
        check.say(arrival.key_lines[name], "%s.arrival.%s is not a field of arrival kind %s" % (path, name, kind))
    if kind == "trace":
        for name in sorted(set(group) & (set(POD_FIELDS) | {"jobs", "tenant", "priority"})):
            check.say(group.key_lines[name], "%s.%s is not allowed with arrival kind trace: the trace file gives it" % (path, name))
        if "pod_gpu" in group:
            check.say(group.key_lines["pod_gpu"], "%s.pod_gpu is not allowed with arrival kind trace: a trace's jobs "
                                                  "ask for no GPUs" % path)
        if out["arrival"]["file"] is not None:
            line = arrival.key_lines["file"]
            out["trace"] = _trace(check, [os.path.join(part, out["arrival"]["file"]) for part in directory], path, line,
                                  tenants, cluster, out["gang"])
        return out
    out["jobs"] = check.field(group, path, "jobs", COUNT)
    out.update({name: check.field(group, path, name, rule) for name, rule in POD_FIELDS.items()})
    if "pod_gpu" in group:
        out["pod_gpu"] = check.field(group, path, "pod_gpu", GPUS)
    out["tenant"] = _tenant_of(check, group, path, tenants)
    _fits(check, group.line, path, out, cluster)
    return out


def _tenant_of(check, group, path, tenants):
    if "tenant" not in group:
        if len(tenants) == 1:
            return next(iter(tenants))
        check.say(group.line, "%s lacks tenant: the scenario has several (%s)" % (path, ", ".join(tenants)))
        return None
    return _known_tenant(check, group.key_lines["tenant"], "%s.tenant" % path, group["tenant"], tenants)


def _known_tenant(check, line, label, value, tenants):
    if value not in tenants:
        check.say(line, "%s=%r is not allowed: use a tenant of the scenario (%s)" % (label, value, ", ".join(tenants)))
        return None
    return value


def _fits(check, line, label, job, cluster):
    """Say so when a pod cannot fit a fake node, or a gang can never be placed whole."""
    sizes = ("pod_cpu", "pod_memory")
    if cluster is None or any(job.get(name) is None for name in sizes + ("pods_per_job",)):
        return
    work = dict(cluster, pod_cpu=job["pod_cpu"], pod_memory=job["pod_memory"])
    unfit = [] if "pools" in cluster else problems(work, "%s", ("pod_cpu", "pod_memory", "node_cpu", "node_memory"))
    if unfit:
        check.say(line, "%s: %s" % (label, unfit[0]))
    elif not room(cluster, job):
        check.say(line, "%s: a pod of %s CPU, %s memory and %d GPUs (%s) is not allowed: it fits no fake node (%s)" % (
            label, job["pod_cpu"], job["pod_memory"], job.get("pod_gpu") or 0, node_pools.GPU, "; ".join(
                "%s: %s CPU, %s memory, %d pods, %d GPUs" % (pool["name"], pool["cpu"], pool["memory"], pool["pods"],
                                                             pool["resources"].get(node_pools.GPU, 0))
                for pool in node_pools.pools(cluster))))
    elif job.get("gang") and room(cluster, job) < job["pods_per_job"]:
        check.say(line, "%s: a gang of %d pods is not allowed: the cluster holds only %d such pods at once" % (
            label, job["pods_per_job"], room(cluster, job)))
    elif cluster_checks.topology_fit_problem(cluster, job):
        check.say(line, "%s: %s" % (label, cluster_checks.topology_fit_problem(cluster, job)))


def room(cluster, job):
    """How many of the job's pods the cluster's fake nodes hold at once (its GPUs counted)."""
    return pods_at_once(dict(cluster, pod_cpu=job["pod_cpu"], pod_memory=job["pod_memory"],
                             pod_gpu=job.get("pod_gpu") or 0))


def _trace(check, paths, group_path, line, tenants, cluster, gang):
    """The rows of a trace CSV as job dicts; problems name its rows (data rows from 1) and columns.

    ``paths``: the file's path and the path to show, both beside the scenario file.
    """
    path, shown = paths
    if not os.path.isfile(path):
        check.say(line, "%s.arrival.file is not allowed: there is no such file as %s" % (group_path, shown))
        return []
    trace = _Checker(shown)
    rows = []
    with open(path, "r", encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = [name.strip() for name in next(reader, [])]
        if sorted(header) != sorted(TRACE_COLUMNS):
            trace.say(1, "the header must name the columns %s, got %s" % (", ".join(TRACE_COLUMNS), ", ".join(header)))
        else:
            for number, values in enumerate(reader, start=1):
                if len(trace.said) >= MAX_TRACE_PROBLEMS:
                    trace.after.append("%s: more bad rows after these" % shown)
                    break
                if values:
                    rows.append(_trace_row(trace, number, reader.line_num, dict(zip(header, values)), len(values),
                                           tenants, cluster, gang))
        if not rows and not trace.problems:
            trace.say(1, "the trace has no rows")
    check.after.extend(trace.problems)
    return rows


def _trace_row(trace, number, line, row, count, tenants, cluster, gang):
    where = "row %d" % number
    if count != len(TRACE_COLUMNS):
        trace.say(line, "%s has %d values, the header names %d columns" % (where, count, len(TRACE_COLUMNS)))
        return {}
    out = {"gang": gang}
    for column, rule in TRACE_COLUMNS.items():
        value = row[column].strip()
        if rule is PRIORITY and re.match(r"^[0-9]+$", value):
            value = int(value)
        allowed = _rule_problem(rule, value)
        if allowed:
            trace.say(line, "%s, column %s=%r is not allowed: %s" % (where, column, row[column], allowed))
        else:
            out[column] = _normal(rule, value)
    if "tenant" in out:
        out["tenant"] = _known_tenant(trace, line, "%s, column tenant" % where, out["tenant"], tenants)
    _fits(trace, line, where, out, cluster)
    return out
