# -*- coding: utf-8 -*-
"""Scenarios: a fake cluster, tenants with weights, and phases of job groups, from a small YAML file.

``load`` reads a shipped scenario by name (scenarios/<name>.yml) or any file by path and checks it (checks.py),
one sentence per problem naming the file, the line and the field; ``scaled`` sizes it by
bench_scenario_scale; ``expand`` turns a checked scenario
into the jobs to submit, in submission order, the same on every call (Poisson arrivals draw from a
generator of their own seed); both are in expansion.py, and are also importable from here, as are ``burst``,
``burst_job``, ``workload_size``, BURST and THRESHOLDS. The format is described in docs/scenarios.md. Quantities
follow module_utils/knobs/rules.py (``millicores``); only ``load`` and the trace reader open files.
"""
from __future__ import annotations

import os

from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.quantities import millicores
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.checks import THRESHOLDS, check_file
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.expansion import (
    BURST,
    burst,
    burst_job,
    expand,
    scaled,
    workload_size,
)

__all__ = ["BURST", "SCENARIO_DIR", "THRESHOLDS", "burst", "burst_job", "expand", "load", "locate", "millicores",
           "problems_of", "scaled", "shipped_names", "workload_size"]

# The project's scenarios/, beside the collection this file is in (collections/ansible_collections/...).
SCENARIO_DIR = os.path.join(os.path.abspath(__file__).rsplit(os.sep + "collections" + os.sep, 1)[0], "scenarios")


def shipped_names(directory=SCENARIO_DIR):
    """The scenarios that come with the toolkit, by name: the files, and BURST."""
    return sorted([name[:-4] for name in os.listdir(directory) if name.endswith(".yml")] + [BURST])


def problems_of(spec, label="bench_scenario", scale=1, scale_label="bench_scenario_scale"):
    """One sentence per problem of a scenario given by name or path as ``label`` (none for BURST), each naming it,
    or of the scenario at ``scale`` (a number greater than 0, checked with the other numbers) as ``scale_label``."""
    if spec == BURST:
        return [] if scale == 1 else ["%s=%g is not allowed with %s=%s: the burst's size is that of the bench_* "
                                      "knobs (bench_nodes, bench_jobs, ...)" % (scale_label, scale, label, BURST)]
    if not isinstance(spec, str) or not spec.strip():
        return ["%s=%r is not allowed: use one of %s, or the path of a scenario file"
                % (label, spec, ", ".join(shipped_names()))]
    path, problem = locate(spec, label=label)
    if problem:
        return [problem]
    scenario, found = load(spec)
    if found:
        return ["%s=%s: %s" % (label, spec, problem) for problem in found]
    return scaled(scenario, scale, scale_label)[1]


def locate(spec, directory=SCENARIO_DIR, label="scenario"):
    """(path, problem) of a scenario given by name or by path (anything with '/' or ending in .yml/.yaml)."""
    spec = str(spec)
    if "/" in spec or spec.endswith((".yml", ".yaml")):
        if not os.path.isfile(spec):
            return None, "%s=%r is not allowed: there is no such file" % (label, spec)
        return spec, None
    names = shipped_names(directory)
    if spec == BURST:
        return None, "%s=%r has no file: it is the workload of the bench_* knobs" % (label, spec)
    if spec not in names:
        return None, "%s=%r is not allowed: use one of %s, or the path of a scenario file" % (label, spec, ", ".join(names))
    return os.path.join(directory, spec + ".yml"), None


def load(spec, directory=SCENARIO_DIR, label="scenario"):
    """(scenario, problems) for a scenario name or path; the scenario is None unless problems is empty. ``label``
    names the scenario in a problem about the name or path itself."""
    path, problem = locate(spec, directory, label)
    if problem:
        return None, [problem]
    shown = path if path == str(spec) else os.path.relpath(path, os.path.dirname(directory))
    return check_file(path, shown)
