# -*- coding: utf-8 -*-
"""Where a run's wall time goes: each task's time, per host, in a phase.

Pure arithmetic, no I/O. callback_plugins/bench_phases.py feeds it the tasks it
timed, prints ``table_lines`` at the end of the playbook and writes ``summarize``
to results/<run_id>/phases.json; the report (plugin_utils/report/run.py) shows the same
rows from that file. Unit-tested in tests/unit/test_bench_phase_clock.py.

A task's phase comes from where it was written: PHASE_RULES, one ordered table,
matched against the task's origins (the role file or playbook an include loads,
the task's own file, then the files of the includes around it, innermost first).
Every second of the wall time lands in exactly one phase per host:
- a host's own tasks; where two of them overlap, the later-started one has the time;
- time between a host's tasks while another host runs one: WAITING (the linear
  strategy waits for the slowest host);
- the rest (the controller loading includes and templating between tasks):
  the phase of the host's next task, else of its last one.
"""
from __future__ import annotations

import fnmatch

INPUT_CHECKS = "input checks"
BUILDS = "Go and builds"
CLUSTER_START = "cluster start"
CALIBRATION = "calibration"
SCHEDULER_DEPLOY = "scheduler deploy"
LOAD_TEST = "load test"
FETCH = "fetch"
TEARDOWN = "teardown"
REPORT = "report"
OTHER = "other"
WAITING = "waiting for other hosts"

# Ordered: the first origin (innermost first) that a rule matches decides; within one
# origin, the first matching rule. Patterns are fnmatch globs ('*' crosses '/'),
# matched against whole paths, so '*roles/x/*' takes the role x wherever it lives.
PHASE_RULES = (
    (REPORT, ("*playbooks/report.yml", "*playbooks/verdict.yml")),
    (CALIBRATION, ("*roles/loadtest/tasks/calibrate.yml",)),
    (FETCH, ("*roles/loadtest/tasks/fetch.yml",)),
    (TEARDOWN, ("*roles/binary_cluster/tasks/down.yml", "*roles/binary_cluster/tasks/stop.yml", "*roles/kind_cluster/tasks/down.yml",
                "*playbooks/teardown.yml", "*roles/bench/tasks/unlock.yml")),
    (LOAD_TEST, ("*roles/loadtest/*",)),
    (BUILDS, ("*roles/golang/*", "*roles/binary_components/*", "*roles/scheduler_components/*",
              "*roles/scheduler/tasks/build.yml", "*roles/kind/*", "*roles/kubectl/*", "*roles/docker/*",
              "*roles/registry/*", "*runtimes/*/prepare.yml")),
    (SCHEDULER_DEPLOY, ("*roles/scheduler/*",)),
    (CLUSTER_START, ("*roles/binary_cluster/*", "*roles/kind_cluster/*")),
    (INPUT_CHECKS, ("*roles/bench/*", "*roles/preflight/*", "*roles/python_env/*", "*playbooks/python.yml",
                    "gather_facts")),
)

# The order of the table's rows and of phases.json.
PHASES = (INPUT_CHECKS, BUILDS, CLUSTER_START, CALIBRATION, SCHEDULER_DEPLOY, LOAD_TEST, FETCH, TEARDOWN,
          REPORT, OTHER, WAITING)
OUTSIDE_LOAD_TEST = "outside the load test"


def phase_of(origins):
    """The phase of a task from its origins (paths, innermost first): PHASE_RULES, else OTHER."""
    for origin in origins:
        for phase, patterns in PHASE_RULES:
            if any(fnmatch.fnmatchcase(origin, pattern) for pattern in patterns):
                return phase
    return OTHER


def owned_segments(spans, start, end):
    """A host's (start, end, phase) spans cut to [start, end] and made disjoint: where spans overlap,
    the later-started one owns the time. Returns sorted (a, b, phase) with a < b."""
    spans = sorted(((max(a, start), min(b, end), phase, index) for index, (a, b, phase) in enumerate(spans)),
                   key=lambda span: (span[0], span[3]))
    spans = [span for span in spans if span[0] < span[1]]
    points = sorted({point for a, b, _, _ in spans for point in (a, b)})
    segments = []
    for a, b in zip(points, points[1:]):
        covering = [span for span in spans if span[0] <= a and span[1] >= b]
        if not covering:
            continue
        phase = covering[-1][2]
        if segments and segments[-1][1] == a and segments[-1][2] == phase:
            segments[-1] = (segments[-1][0], b, phase)
        else:
            segments.append((a, b, phase))
    return segments


def subtract(interval, busy):
    """Parts of ``interval`` (a, b) covered by and free of the sorted disjoint ``busy`` intervals:
    (covered seconds, [free (a, b)])."""
    a, b = interval
    covered, free, cursor = 0.0, [], a
    for c, d in busy:
        if d <= cursor or c >= b:
            continue
        if c > cursor:
            free.append((cursor, c))
        covered += min(d, b) - max(c, cursor)
        cursor = max(cursor, min(d, b))
    if cursor < b:
        free.append((cursor, b))
    return covered, free


def merge(intervals):
    merged = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def host_phase_seconds(spans, start, end):
    """{host: {phase: seconds}} over the wall time [start, end]; ``spans`` is {host: [(a, b, phase)]}.
    Each host's seconds add up to end - start (see the module's docstring for the rules)."""
    owned = {host: owned_segments(host_spans, start, end) for host, host_spans in spans.items()}
    seconds = {}
    for host, segments in owned.items():
        others = merge([(a, b) for other, other_segments in owned.items() if other != host
                        for a, b, _ in other_segments])
        totals = dict.fromkeys(PHASES, 0.0)
        for a, b, phase in segments:
            totals[phase] = totals.get(phase, 0.0) + (b - a)
        edges = [start] + [point for a, b, _ in segments for point in (a, b)] + [end]
        for gap_start, gap_end in zip(edges[::2], edges[1::2]):
            if gap_end <= gap_start:
                continue
            waited, free = subtract((gap_start, gap_end), others)
            totals[WAITING] += waited
            following = [phase for a, _, phase in segments if a >= gap_end]
            before = [phase for _, b, phase in segments if b <= gap_start]
            owner = following[0] if following else before[-1] if before else OTHER
            totals[owner] = totals.get(owner, 0.0) + sum(d - c for c, d in free)
        seconds[host] = totals
    return seconds


def summarize(spans, start, end, run_id=None):
    """The document of phases.json: wall time, and per host each phase's seconds and share (phases that
    took no time left out), and the time outside the load test."""
    wall = max(end - start, 0.0)
    hosts = {}
    for host, totals in host_phase_seconds(spans, start, end).items():
        outside = wall - totals.get(LOAD_TEST, 0.0)
        hosts[host] = {
            "phases_s": {phase: round(totals[phase], 3) for phase in PHASES if totals.get(phase, 0.0) > 0.0005},
            "outside_load_test_s": round(outside, 3),
            "outside_load_test_share": round(outside / wall, 4) if wall > 0 else None,
        }
    return {"run_id": run_id, "wall_s": round(wall, 3), "phases": list(PHASES), "hosts": hosts}


def share_text(seconds, wall):
    return "%.1f s %5.1f %%" % (seconds, 100.0 * seconds / wall) if wall else "%.1f s" % seconds


def table_rows(document):
    """(headers, rows) of the "where the time went" table from a phases.json document: a row per phase
    that took time on any host (in PHASES order), then the time outside the load test; a column per host."""
    hosts = document.get("hosts") or {}
    wall = document.get("wall_s") or 0.0
    names = list(hosts)
    used = [phase for phase in PHASES if any(phase in (hosts[host].get("phases_s") or {}) for host in names)]
    rows = [[phase] + [share_text((hosts[host].get("phases_s") or {}).get(phase, 0.0), wall) for host in names]
            for phase in used]
    rows.append([OUTSIDE_LOAD_TEST] + [share_text(hosts[host].get("outside_load_test_s") or 0.0, wall)
                                       for host in names])
    return ["phase"] + names, rows


def table_lines(document):
    """The table as aligned text lines, headed by the wall time."""
    headers, rows = table_rows(document)
    widths = [max(len(str(row[column])) for row in [headers] + rows) for column in range(len(headers))]
    lines = ["Where the time went (wall time %.1f s; seconds and share of it per host)" % (document.get("wall_s") or 0.0)]
    for row in [headers] + rows:
        lines.append("  ".join(str(text).ljust(width) if column == 0 else str(text).rjust(width)
                               for column, (text, width) in enumerate(zip(row, widths))).rstrip())
    return lines
