# -*- coding: utf-8 -*-
"""Checks of the playbook-level bench_* variables, as one sentence per problem.

``bench_problems`` takes a dict of the variables and returns the problems in a
fixed order; the bench role fails on the first with that sentence,
before any task changes a host.
"""
from __future__ import annotations

import difflib
import functools
import glob
import ipaddress
import os
import re

import yaml
from ansible_collections.kube_sched_bench.core.plugins.module_utils import schedulers as descriptors
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.rules import (
    RULES,
    WORKLOAD,
    boolean,
    problems,
    queue_quota,
    rule_problem,
)
from ansible_collections.kube_sched_bench.core.plugins.module_utils.knobs.table import names, typed
from ansible_collections.kube_sched_bench.core.plugins.module_utils.loadtest.hold import BACKLOG, arrival_problems
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.stats import ALPHA, smallest_p
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.spec import BURST, expand, load, scaled, workload_size
from ansible_collections.kube_sched_bench.core.plugins.module_utils.scenarios.spec import problems_of as scenario_problems
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers.knob_checks import (
    RUNTIME_SCHEDULERS,
    SCHEDULERS,
    kube_scheduler_problems,
    pod_creation_problems,
    profile_problems,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.gate import parse_gate
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.run import find_run
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.versions.matrix import PIN_PATTERNS, VERSION_SETS

RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
URL = re.compile(r"^https?://[^\s/$.?#][^\s]*$")
MODULE_PATTERN = re.compile(r"^[A-Za-z0-9._~/*?\[\]-]+$")
PROJECT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What bench_problems checks besides the rules table (module_utils/knobs/rules.py).
OTHER_CHECKED = ("scenario", "schedulers", "run_id", "port_range_start", "port_range_end", "scheduler_gogc",
                 "scheduler_gomemlimit", "listen_address", "allow_remote_access", "version_pins", "gate",
                 "report_compare_to", "results_dir")
GROUPS = {"checked": tuple(RULES) + OTHER_CHECKED, "workload": WORKLOAD, "recorded": names("recorded")}


def bench_variables(group):
    """The bench_* names of a group of values: ``checked`` (what bench_problems checks), ``workload`` or
    ``recorded`` (env.json's knobs)."""
    return ["bench_" + name for name in GROUPS[group]]


def knob_record(values, group):
    """The values of a group's knobs (as ``query('vars', *(group | bench_variables))`` gives them) by their
    unprefixed names, each as its declared type: what env.json records."""
    return {name: typed(name, value) for name, value in zip(GROUPS[group], values)}


def _number(value):
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise ValueError
    return int(str(value).strip()) if not isinstance(value, (int, float)) else int(value)


def _problems(v):
    yield from problems({name[len("bench_"):]: value for name, value in v.items() if name.startswith("bench_")},
                        "bench_%s")
    scale = v.get("bench_scenario_scale", 1)
    # A scale that breaks its rule is said above; the scenario is then checked at its own size.
    scale = 1 if rule_problem(RULES["scenario_scale"], scale) else float(scale)
    found = scenario_problems(v.get("bench_scenario", BURST), scale=scale)
    yield from found
    if not found and v.get("bench_arrival") == BACKLOG:
        spec = v.get("bench_scenario", BURST)
        scenario = None if spec == BURST else scaled(load(spec)[0], scale)[0]
        yield from arrival_problems(BACKLOG, v.get("bench_runtime"), expand(scenario) if scenario else None,
                                    spec, "bench_%s")
    schedulers = v.get("bench_schedulers")
    if isinstance(schedulers, str) or not isinstance(schedulers, (list, tuple)) or not schedulers:
        yield "bench_schedulers=%r is not allowed: use a non-empty list of %s" % (schedulers, ", ".join(SCHEDULERS))
    else:
        for name in schedulers:
            if name not in SCHEDULERS:
                yield "bench_schedulers contains %r, which is not allowed: use %s" % (name, ", ".join(SCHEDULERS))
        if len(set(schedulers)) != len(schedulers):
            yield "bench_schedulers=%r lists a scheduler twice" % (list(schedulers),)
        runtime = v.get("bench_runtime")
        for name in schedulers:
            if name in SCHEDULERS and name not in RUNTIME_SCHEDULERS.get(runtime, SCHEDULERS):
                yield ("bench_schedulers contains %r, which the %s runtime cannot run: use %s"
                       % (name, runtime, ", ".join(RUNTIME_SCHEDULERS[runtime])))
        yield from pod_creation_problems(v.get("bench_pod_creation"), schedulers, "bench_%s")
        yield from kube_scheduler_problems({name[len("bench_"):]: value for name, value in v.items()
                                            if name.startswith("bench_")}, "bench_%s")
    yield from profile_problems({name[len("bench_"):]: value for name, value in v.items() if name.startswith("bench_")},
                                "bench_%s")
    run_id = v.get("bench_run_id")
    if run_id not in (None, "") and (not RUN_ID.match(str(run_id)) or ".." in str(run_id)):
        yield ("bench_run_id=%r is not allowed: use letters, digits, '.', '_' and '-' (no '/' or '..'), "
               "at most 64 characters" % (run_id,))
    try:
        start = _number(v.get("bench_port_range_start"))
        end = _number(v.get("bench_port_range_end"))
        if not 1024 <= start <= end <= 65535:
            raise ValueError
    except (TypeError, ValueError):
        yield ("bench_port_range_start=%r/bench_port_range_end=%r is not allowed: use 1024 <= start <= end <= 65535"
               % (v.get("bench_port_range_start"), v.get("bench_port_range_end")))
    value = v.get("bench_scheduler_gogc")
    if value not in (None, "") and not re.match(r"^(off|\d+)$", str(value)):
        yield "bench_scheduler_gogc=%r is not allowed: use a percentage such as 100, or off, or leave it empty" % (
            value,)
    value = v.get("bench_scheduler_gomemlimit")
    if value not in (None, "") and not re.match(r"^(off|\d+(B|KiB|MiB|GiB|TiB)?)$", str(value)):
        yield ("bench_scheduler_gomemlimit=%r is not allowed: use a size such as 2GiB or 512MiB, or leave it empty"
               % (value,))
    yield from _listen_problems(v)
    yield from version_pin_problems(v.get("bench_version_pins"))
    yield from compare_to_problems(v.get("bench_report_compare_to"), v.get("bench_results_dir"))
    yield from gate_problems(v.get("bench_gate"), v.get("bench_report_compare_to"), v.get("bench_repeats"),
                             v.get("bench_schedulers"))


def scenario_of(spec, scale=1):
    """The checked scenario (sched_scenarios.load) that ``spec`` names at ``scale`` (sched_scenarios.scaled), or
    None for burst (the bench_* workload)."""
    if spec == BURST:
        return None
    scenario, problems = load(spec)
    if not problems:
        scenario, problems = scaled(scenario, float(scale))
    if problems:
        raise ValueError(problems[0])
    return scenario


def compare_to_problems(value, results_dir=None, name="bench_report_compare_to"):
    """A sentence when the earlier run to compare with is neither a directory nor a run id in the results."""
    if value in (None, ""):
        return []
    results_dir = os.path.abspath(os.path.expanduser(str(results_dir or os.path.join(PROJECT_DIR, "results"))))
    if find_run(value, results_dir) is None:
        return ["%s=%s is not allowed: it is neither a directory nor a run id in %s; give an earlier run's id or "
                "directory" % (name, value, results_dir)]
    return []


def gate_problems(gate, compare_to=None, repeats=None, schedulers=None, name="bench_gate"):
    """One sentence per problem of the gate (sched_gate.parse_gate); with the run's bench_repeats and
    bench_schedulers, also a gate that could only miss: a scheduler the run does not benchmark, or a significance
    too few repeats cannot reach."""
    parsed, found = parse_gate(gate, name, compared=compare_to not in (None, ""))
    if isinstance(schedulers, (list, tuple)):
        for scheduler in parsed.named_schedulers:
            if scheduler not in schedulers:
                found.append("%s names the scheduler %r, which is not allowed: bench_schedulers=%s does not run it"
                              % (name, scheduler, list(schedulers)))
    try:
        repeats = int(repeats)
    except (TypeError, ValueError):
        return found
    if repeats >= 1 and smallest_p(repeats, repeats) > ALPHA:
        for scheduler, figures in parsed.rules.items():
            for figure, thresholds in figures.items():
                for threshold in thresholds:
                    if threshold.significant:
                        found.append("%s.%s.%s=%r is not allowed with bench_repeats=%d: a rank test on %d vs %d "
                                     "repeats cannot reach p <= %g; use bench_repeats=4 or more, or drop "
                                     "'significant'" % (name, scheduler, figure, threshold.text, repeats, repeats,
                                                        repeats, ALPHA))
    return found


def _listen_problems(v):
    """bench_listen_address must be an IP address; one that other machines can reach needs the opt-in."""
    address = v.get("bench_listen_address", "127.0.0.1")
    allow = v.get("bench_allow_remote_access", False)
    try:
        allow = boolean(allow)
    except (KeyError, TypeError):
        yield "bench_allow_remote_access=%r is not allowed: use true or false" % (allow,)
        return
    try:
        ip = ipaddress.ip_address(str(address))
    except ValueError:
        yield "bench_listen_address=%r is not allowed: use an IP address such as 127.0.0.1" % (address,)
        return
    if not ip.is_loopback and not allow:
        yield ("bench_listen_address=%s is not allowed: it is not a loopback address, so other machines could reach "
               "the cluster's ports; keep 127.0.0.1, or set bench_allow_remote_access: true to open them on purpose "
               "(every listener still requires a client certificate)" % (address,))


def version_pin_problems(pins, name="bench_version_pins"):
    """One sentence per pin that is not a pin of the version matrix or does not look like one."""
    if pins in (None, ""):
        return []
    if not isinstance(pins, dict):
        return ["%s=%r is not allowed: use a mapping of pins such as {kind: v0.27.0, kubernetes: v1.32.2}"
                % (name, pins)]
    problems = []
    for key in sorted(pins, key=str):
        value = pins[key]
        if value in (None, ""):
            continue
        if key not in PIN_PATTERNS:
            problems.append("%s=%s is not allowed: unknown version pin %s; allowed: %s"
                            % (name, dict(pins), key, ", ".join(sorted(PIN_PATTERNS))))
        elif not PIN_PATTERNS[key].match(str(value)):
            problems.append("%s=%s is not allowed: version pin %s=%r is malformed (expected like %s)"
                            % (name, dict(pins), key, value, VERSION_SETS["modern"][key]))
    return problems


def results_dir_problem(path, name="bench_results_dir"):
    """A sentence when the controller cannot keep results in ``path``: it must be a directory it can write, or
    a path it can create (the nearest existing parent a writable directory). Empty when it can."""
    path = os.path.abspath(os.path.expanduser(str(path)))
    if os.path.exists(path):
        if not os.path.isdir(path):
            return "%s=%s is not allowed: it is a file, not a directory; use a directory for the results" % (name, path)
        if not os.access(path, os.W_OK | os.X_OK):
            return ("%s=%s is not allowed: this user (uid %d) cannot write in it; use a directory it can write"
                    % (name, path, os.getuid()))
        return ""
    parent = os.path.dirname(path)
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        return ("%s=%s is not allowed: it cannot be created, %s is a file, not a directory; use a directory for "
                "the results" % (name, path, parent))
    if not os.access(parent, os.W_OK | os.X_OK):
        return ("%s=%s is not allowed: it cannot be created, this user (uid %d) cannot write in %s; use a "
                "directory it can write" % (name, path, os.getuid(), parent))
    return ""


def _goproxy_entries(value):
    return [entry for entry in re.split(r"[,|]", str(value or "")) if entry]


def goproxy_problem(value, name="golang_goproxy"):
    """A sentence when a GOPROXY list has an entry that is not a URL, a file:// path, 'direct' or 'off'."""
    for entry in _goproxy_entries(value):
        if entry.startswith("file://"):
            if not entry.startswith("file:///"):
                return ("%s=%s is not allowed: a file:// entry needs an absolute path (file:///srv/goproxy), got %s"
                        % (name, value, entry))
        elif entry not in ("direct", "off") and not URL.match(entry):
            return ("%s=%s is not allowed: use URLs (http://, https:// or file:///<absolute path>), 'direct' or "
                    "'off', separated by ',' or '|'" % (name, value))
    return ""


def goproxy_file_paths(value):
    """The directories of the file:// entries of a GOPROXY list (each must exist on the host)."""
    return [entry[len("file://"):] for entry in _goproxy_entries(value) if entry.startswith("file:///")]


def module_patterns_problem(value, name="golang_gonosumdb"):
    """A sentence when a GONOSUMDB/GOPRIVATE value is not a comma-separated list of module path patterns."""
    for entry in str(value or "").split(","):
        if value and not MODULE_PATTERN.match(entry):
            return ("%s=%s is not allowed: use module path patterns separated by ',', such as "
                    "example.org/team/*,example.com/tools" % (name, value))
    return ""


@functools.lru_cache(maxsize=None)
def _knobs(roles_dir):
    """The options of every role's argument spec and the schedulers' own knobs (their descriptors' knobs), and the
    roles' prefixes (bench_, golang_, ...); read once."""
    known = set()
    for path in glob.glob(os.path.join(roles_dir, "*", "meta", "argument_specs.yml")):
        with open(path, encoding="utf-8") as handle:
            specs = (yaml.safe_load(handle) or {}).get("argument_specs") or {}
        for entry_point in specs.values():
            known.update((entry_point or {}).get("options") or {})
    for descriptor in descriptors.DESCRIPTORS.values():
        known.update(descriptor.get("knobs") or {})
    prefixes = tuple(name + "_" for name in os.listdir(roles_dir) if os.path.isdir(os.path.join(roles_dir, name)))
    return frozenset(known), prefixes


def _origin(value):
    """Where Ansible read a value from (extra vars, a group_vars or host_vars file, the inventory), if it can tell."""
    try:
        from ansible._internal._datatag._tags import Origin  # diagnostic metadata of ansible-core 2.19
    except ImportError:
        return ""
    origin = Origin.get_tag(value)
    if origin is None:
        return ""
    if not origin.path:
        return "extra vars (-e)" if "'-e'" in (origin.description or "") else (origin.description or "")
    where = os.path.join(*os.path.normpath(origin.path).split(os.sep)[-2:])
    return "%s line %s" % (where, origin.line_num) if origin.line_num else where


def unknown_knobs_of_hosts(hostvars, hosts, roles_dir):
    """unknown_knobs for each of ``hosts``, each line led by the host's name (the same typo set for a whole
    group, or in extra vars, is named once per host that has it)."""
    lines = []
    for host in hosts:
        variables = hostvars[host]
        for line in unknown_knobs(variables, roles_dir, variables.get("bench_unchecked_vars") or ()):
            lines.append("%s: %s" % (host, line))
    return lines


def unknown_knobs(variables, roles_dir, unchecked=()):
    """One sentence per variable with a prefix of the toolkit's roles (bench_, golang_, ...) that no role's
    argument spec (roles/*/meta/argument_specs.yml, the one list of knobs) defines.

    ``variables`` maps names to values as the inventory and extra vars set them (a host's hostvars).
    """
    known, prefixes = _knobs(roles_dir)
    problems = []
    for name in sorted(variables):
        if not name.startswith(prefixes) or name in known or name in (unchecked or ()):
            continue
        origin = _origin(variables[name])
        guess = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
        problems.append("%s%s is not a variable of this toolkit: %s (a name set on purpose for something else "
                        "goes in bench_unchecked_vars)" % (name, ", set in %s," % origin if origin else "",
                                                            "did you mean %s?" % guess[0] if guess
                                                            else "no knob has a similar name"))
    return problems


def bench_problems(variables):
    """All problems with the bench_* variables, as sentences, in a fixed order."""
    return list(_problems(variables))


def host_workload(workload, scenario=None):
    """What the host must hold (preflight's inputs): fake nodes, pods, and the knobs that set them, for the
    message that asks to lower them."""
    nodes, pods = workload_size(workload, scenario)
    knobs = ("bench_scenario_scale (bench_scenario=%s)" % scenario["name"] if scenario
             else "bench_jobs, bench_pods_per_job or bench_nodes")
    return {"nodes": nodes, "pods": pods, "knobs": knobs}


class FilterModule:
    def filters(self):
        return {"bench_problems": bench_problems, "bench_variables": bench_variables, "knob_record": knob_record,
                "goproxy_problem": goproxy_problem,
                "goproxy_file_paths": goproxy_file_paths, "module_patterns_problem": module_patterns_problem,
                "results_dir_problem": results_dir_problem, "version_pin_problems": version_pin_problems,
                "gate_problems": gate_problems, "compare_to_problems": compare_to_problems,
                "unknown_knobs_of_hosts": unknown_knobs_of_hosts, "queue_quota": queue_quota,
                "scenario_of": scenario_of, "host_workload": host_workload}
