# -*- coding: utf-8 -*-
"""The report's sections about the run's setting rather than its schedulers: where the time went (phases.json),
each host's calibration probes, each scheduler's cycle settings and the hosts' environments (env.json), side by
side. No I/O here."""
from __future__ import annotations

import json

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.blocks import (
    Cell,
    Heading,
    Paragraph,
    Table,
    chunk_columns,
    format_number,
    format_stat,
)
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import NOT_AVAILABLE, Stat, number_at
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.phases import table_rows as phase_table_rows

# Tables with a column per host (where the time went, what differs between hosts): at most this many hosts each
# (a lab's host names are often 25 characters, that do not wrap).
HOSTS_PER_TABLE = 4


def flatten(document, prefix=""):
    """{'a.b': leaf} for the nested dict; lists and empty dicts become JSON text."""
    flat = {}
    for key, value in document.items():
        name = prefix + str(key)
        if isinstance(value, dict) and value:
            flat.update(flatten(value, name + "."))
        elif isinstance(value, (dict, list)):
            flat[name] = json.dumps(value, sort_keys=True)
        elif isinstance(value, bool):
            flat[name] = "true" if value else "false"
        elif value is None or value == "":
            flat[name] = "(empty)"
        else:
            flat[name] = str(value)
    return flat


# What in env.json describes the host and the run's knobs; the rest (run id, scheduler, outcome) is per scheduler.
ENV_SECTIONS = ("runtime", "system", "versions", "workload", "knobs")


def environment(env):
    sections = {section: env[section] for section in ENV_SECTIONS if section in (env or {})}
    if isinstance(sections.get("versions"), dict):
        # The deployed scheduler's record belongs to one scheduler, not the host; the host table shows its version.
        sections["versions"] = {key: value for key, value in sections["versions"].items() if key != "scheduler"}
    return flatten(sections)


def environment_tables(run):
    """(differing, same, without): hosts' environments side by side, and the hosts that recorded none."""
    hosts = [host for host in run.hosts if run.hosts[host].env]
    envs = {host: environment(run.hosts[host].env) for host in hosts}
    fields = []
    for host in hosts:
        fields += [name for name in envs[host] if name not in fields]
    differing = Table(["Field"] + hosts, [])
    same = Table(["Field", "Value on every host"], [])
    for name in fields:
        values = [envs[host].get(name) for host in hosts]
        if len(set(values)) > 1:
            differing.rows.append([Cell(name)] + [Cell(NOT_AVAILABLE if value is None else value, "bad")
                                                  for value in values])
        else:
            same.rows.append([Cell(name), Cell(values[0])])
    return differing, same, [host for host in run.hosts if host not in envs]


CALIBRATION_HEADERS = ["Host", "API create ceiling (Jobs/s)", "API spread (%)", "Ceiling (pods/s)",
                       "Binding ceiling (pods/s)", "CPU probe (passes/s)", "CPU spread (%)", "Python",
                       "Probe time (s), API / CPU", "Measured"]
CALIBRATION_NOTE = (
    "Measured once per host, on its first fresh cluster before any scheduler (bench_calibrate), or reused from an "
    "earlier run of the same host, versions and load generator for bench_calibration_max_age hours (Measured says "
    "which run measured it and when): each probe's median "
    "over its rounds, their min–max in parentheses, and the spread, (max − min) / median. The API create ceiling "
    "is how many suspended Jobs a second the load generator (its concurrency and client rate limit) created on the "
    "cluster, with nothing else running on it; in pods/s, times the pods per job. The CPU probe is passes of a fixed "
    "Python loop a second on one core; the Python version counts too. Share of host ceiling, in the tables above, is "
    "a scheduler's mean throughput divided by its host's ceiling in pods/s. The binding ceiling is how many pods a "
    "second the load generator bound (pods/binding of pods that exist) with nothing else running, the bindings this "
    "host takes; share of binding ceiling divides by it.")


def probe_stat(probe, figure, rounds):
    """The Stat of a probe's figure ({median, min, max}) over its rounds, as env.json records them."""
    return Stat(number_at(probe, (figure, "median")), number_at(probe, (figure, "min")),
                number_at(probe, (figure, "max")), len(probe.get(rounds) or []))


def calibration_row(host, calibration):
    if calibration is None:
        return [Cell(host)] + [Cell(NOT_AVAILABLE) for _ in CALIBRATION_HEADERS[1:]]
    api, cpu = calibration.get("api_create") or {}, calibration.get("cpu") or {}
    return [Cell(host), Cell(format_stat(probe_stat(api, "jobs_per_s", "rounds_jobs_per_s"))),
            Cell(format_number(number_at(api, ("jobs_per_s", "spread_pct")))),
            Cell(format_number(number_at(api, ("ceiling_pods_per_s",)))),
            Cell(format_stat(probe_stat(calibration.get("api_binding") or {}, "pods_per_s", "rounds_pods_per_s"))),
            Cell(format_stat(probe_stat(cpu, "passes_per_s", "rounds_passes_per_s"))),
            Cell(format_number(number_at(cpu, ("passes_per_s", "spread_pct")))),
            Cell(str(cpu.get("python") or NOT_AVAILABLE)),
            Cell("%s / %s" % (format_number(number_at(api, ("duration_s",))),
                              format_number(number_at(cpu, ("duration_s",))))),
            Cell(measured_cell(calibration))]


def measured_cell(calibration):
    """When and by which run a host's calibration was measured: this run, or an earlier one it reused."""
    if not calibration.get("measured_at"):
        return NOT_AVAILABLE
    if not calibration.get("reused"):
        return "this run, %s" % calibration["measured_at"]
    return "reused: run %s, %s (%s h before)" % (calibration.get("measured_by_run") or NOT_AVAILABLE,
                                                 calibration["measured_at"], format_number(calibration.get("age_h")))


def calibration_table(run):
    """Each host's two probes, or None when no host measured them."""
    if not any(host.calibration for host in run.hosts.values()):
        return None
    return Table(list(CALIBRATION_HEADERS), [calibration_row(name, host.calibration)
                                             for name, host in run.hosts.items()])


CYCLE_HEADERS = ["Host", "Scheduler", "Profile", "Cycle settings", "Read from"]
CYCLE_NOTE = (
    "The settings that bound each scheduler's pace, as it ran with them: read back after it started from its "
    "process, its configuration or its release (env.json's cycle), not copied from the knobs that set them "
    "(bench_scheduler_cycle_period, bench_kube_scheduler_parallelism, "
    "bench_kube_scheduler_percentage_of_nodes_to_score). Seconds end in _s; a percentage of nodes to score of 0 "
    "is kube-scheduler's adaptive share. What each bounds: docs/runtimes-and-schedulers.md, Cycle settings. Profile: "
    "bench_scheduler_profile and the settings its configuration got from it (env.json's profile, with each value "
    "and the upstream page it follows; docs/runtimes-and-schedulers.md, Scheduler profiles).")


def format_profile(env):
    """The profile of one env.json as ``name`` or ``name: setting, ...``; n/a in runs from before profiles."""
    profile = (env or {}).get("profile")
    if not isinstance(profile, dict) or not profile.get("name"):
        return NOT_AVAILABLE
    settings = [str(entry.get("setting")) for entry in profile.get("settings") or () if isinstance(entry, dict)]
    return "%s: %s" % (profile["name"], ", ".join(settings)) if settings else str(profile["name"])


def cycle_of(env):
    """(settings, where they were read) of one env.json: its ``cycle`` (older runs: none), and the deployed
    scheduler's record's ``cycle_source``."""
    deployed = ((env or {}).get("versions") or {}).get("scheduler") or {}
    cycle = (env or {}).get("cycle")
    if not isinstance(cycle, dict):
        cycle = deployed.get("cycle") if isinstance(deployed.get("cycle"), dict) else None
    return cycle, str(deployed.get("cycle_source") or "")


def format_cycle(cycle):
    """name=value, ... in the order recorded; numbers as the report writes them, switches as true/false."""
    if not cycle:
        return NOT_AVAILABLE

    def text(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return format_number(value)
        return str(value)
    return ", ".join("%s=%s" % (name, text(value)) for name, value in cycle.items())


def cycle_table(run):
    """Each host's and scheduler's cycle settings, from the first repeat with an env.json; None when no env.json
    records them (a run from before they were recorded)."""
    rows, recorded = [], False
    for host_name, host in run.hosts.items():
        for scheduler in run.scheduler_names:
            result = host.schedulers.get(scheduler)
            env = next((sample.env for sample in (result.samples if result else []) if sample.env), None)
            if env is None:
                continue
            cycle, source = cycle_of(env)
            recorded = recorded or cycle is not None
            rows.append([Cell(host_name), Cell(scheduler), Cell(format_profile(env)), Cell(format_cycle(cycle)),
                         Cell(source or NOT_AVAILABLE)])
    return Table(list(CYCLE_HEADERS), rows) if recorded else None


PHASES_NOTE = (
    "Each task's wall time on each host, in the phase it belongs to (module_utils/bench_phase_clock.py has "
    "the rules), with its share of the wall time. A report written during the run sees phases.json as it "
    "was when the report began; the table printed at the end of the run, and phases.json after it, "
    "also hold the report and the tasks after it.")


def phases_table(run):
    """The run's "where the time went" table from phases.json, or None without one."""
    if not run.phases:
        return None
    headers, rows = phase_table_rows(run.phases)
    return Table(headers, [[Cell(text) for text in row] for row in rows])


def phases_blocks(run):
    """The section "Where the time went", or nothing without phases.json."""
    phases = phases_table(run)
    if phases is None:
        return []
    return [Heading(2, "Where the time went (wall time %.1f s)" % (run.phases.get("wall_s") or 0.0), "phases"),
            *chunk_columns(phases, HOSTS_PER_TABLE), Paragraph(PHASES_NOTE)]


def environment_blocks(run):
    """The section "Environment": the hosts without env.json, their calibration, what differs between them and what
    every host recorded the same."""
    differing, same, without = environment_tables(run)
    blocks = [Heading(2, "Environment", "environment")]
    if without:
        blocks.append(Paragraph("No env.json from: %s." % ", ".join(without)))
    calibration = calibration_table(run)
    if calibration is not None:
        blocks += [Heading(3, "Host calibration"), calibration, Paragraph(CALIBRATION_NOTE)]
    cycle = cycle_table(run)
    if cycle is not None:
        blocks += [Heading(3, "Scheduler cycle settings", "cycle-settings"), cycle, Paragraph(CYCLE_NOTE)]
    if len(run.hosts) - len(without) > 1:
        blocks.append(Heading(3, "Differs between hosts"))
        blocks += (chunk_columns(differing, HOSTS_PER_TABLE) if differing.rows
                   else [Paragraph("Nothing: every host recorded the same.")])
        blocks.append(Heading(3, "Same on every host"))
    if same.rows:
        blocks.append(same)
    return blocks
