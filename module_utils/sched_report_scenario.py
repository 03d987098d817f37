# -*- coding: utf-8 -*-
"""What the report shows of scenario runs (bench_scenario other than burst), as plain data. No I/O here.

For each scenario in the run, per host: one row per scheduler with the figures of its summary.json's
``scenario_metrics`` (first usable repeat), what it cannot express (``unsupported``) and the promises it broke
(``findings``); and a chart per host and scheduler of each tenant's share of the allocated CPU against its target.
module_utils/sched_report.py turns these into tables and charts.
"""
from __future__ import annotations

HEADERS = ["Scheduler", "Jobs all bound", "Job latency p50 / p99 (ms)", "Fairness error (Jain)",
           "Full gangs; time to full p50 (ms); partial pod-s", "High priority wait max (ms); preempted",
           "Peak CPU share", "Unsupported", "Findings"]
NOT_AVAILABLE = "n/a"


def _number(value, digits=1):
    if value is None:
        return NOT_AVAILABLE
    return ("%." + str(digits) + "f") % value


def scenario_of(sample):
    """The scenario a sample ran, None for the burst."""
    return (sample.summary or {}).get("scenario")


def _sample(result):
    samples = result.usable_samples
    return samples[0] if samples else None


def row(name, summary):
    """(cells, tones) of one scheduler's scenario figures; tone "bad" where a promise was broken."""
    metrics = summary.get("scenario_metrics") or {}
    breakdown = metrics.get("breakdown") or {}
    latency = breakdown.get("all_bound_ms") or {}
    fair, gang, priority = metrics.get("fair_share"), metrics.get("gang"), metrics.get("priority")
    unsupported = summary.get("unsupported") or []
    findings = summary.get("findings") or []

    def unless(feature, text):
        """A feature the scheduler cannot express: said so, beside what was measured anyway."""
        return "unsupported: %s" % text if feature in unsupported else text

    cells = [
        name,
        "%s / %s" % (breakdown.get("jobs_all_bound", NOT_AVAILABLE), breakdown.get("jobs", NOT_AVAILABLE)),
        "%s / %s" % (_number(latency.get("p50")), _number(latency.get("p99"))),
        unless("fair_share", "%s (%s)" % (_number(fair.get("fairness_error"), 3), _number(fair.get("jain_index"), 3))
               ) if fair else NOT_AVAILABLE,
        unless("gang", "%s/%s; %s; %s" % (gang["full_gangs"], gang["gang_jobs"],
                                          _number((gang.get("time_to_full_gang_ms") or {}).get("p50")),
                                          _number(gang.get("partial_gang_pod_s")))) if gang else NOT_AVAILABLE,
        unless("priority", "%s; %s" % (_number((priority.get("high_priority_wait_ms") or {}).get("max")),
                                       priority.get("pods_preempted"))) if priority else NOT_AVAILABLE,
        _number((metrics.get("utilization") or {}).get("peak_cpu_share"), 3),
        ", ".join(unsupported) or "none",
        "; ".join(findings) or "none",
    ]
    tones = [None] * len(cells)
    if findings:
        tones[-1] = "bad"
    if breakdown.get("jobs_all_bound") != breakdown.get("jobs"):
        tones[1] = "bad"
    return cells, tones


def share_series(fair):
    """label -> (seconds, values): each tenant's share and target per second, from fair_share's series."""
    series = {}
    for point in fair.get("series") or []:
        for kind in ("shares", "targets"):
            for tenant, value in (point.get(kind) or {}).items():
                label = "%s %s" % (tenant, "share" if kind == "shares" else "target")
                xs, ys = series.setdefault(label, ([], []))
                xs.append(point["second"])
                ys.append(value)
    return series


def scenario_sections(run):
    """[{"scenario", "hosts": {host: [(cells, tones)]}, "charts": [{"host", "scheduler", "title", "series"}]}],
    one per scenario run, in the order first met."""
    sections = {}
    for host in run.hosts.values():
        for name, result in host.schedulers.items():
            sample = _sample(result)
            scenario = scenario_of(sample) if sample else None
            if not scenario:
                continue
            section = sections.setdefault(scenario, {"scenario": scenario, "hosts": {}, "charts": []})
            section["hosts"].setdefault(host.name, []).append(row(name, sample.summary))
            fair = (sample.summary.get("scenario_metrics") or {}).get("fair_share")
            if fair and fair.get("series"):
                section["charts"].append({
                    "host": host.name, "scheduler": name, "series": share_series(fair),
                    "title": "%s on %s, %s: tenants' CPU share and target" % (name, host.name, scenario)})
    return list(sections.values())
