# -*- coding: utf-8 -*-
"""The host section's "why": where the host's CPU went, who asked the API server what, what each scheduler's own
metrics say, and a paragraph on why the fastest and the slowest scheduler of the host differ. Each scheduler's
figures are its representative repeat's (the median makespan), from summary.json's component_cost, api_requests
and internals (docs/metrics.md, "Why: internals, cost per component, API requests"). No I/O here."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.components import COMPONENTS, SCHEDULER
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.internals import CONTROL_PLANE
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.requests import ROLES
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.blocks import Cell, Heading, Paragraph, Table, slug

NOTE = ("Why each scheduler is as fast as it is, over the load test's window (from just before its first job to its "
        "last pod bound), for each scheduler's repeat with the median makespan. A share is of all the host's CPU "
        "time in the window; per pod is per bound pod. Percentiles from the processes' own histograms are estimates "
        "(as Prometheus' histogram_quantile, never finer than the buckets); docs/metrics.md defines every figure.")


def _number(value, digits=1):
    if value is None:
        return ""
    return ("%%.%df" % digits) % value


def _summaries(run, host_name):
    """[(scheduler name, summary)] of the host's schedulers with a representative repeat, in the run's order."""
    found = []
    host = run.hosts[host_name]
    for name in run.scheduler_names:
        result = host.schedulers.get(name)
        sample = result.representative() if result is not None else None
        if sample is not None and isinstance(sample.summary, dict):
            found.append((name, sample.summary))
    return found


def cpu_table(summaries):
    """Where the host's CPU went: per scheduler, each component's share of the host and its CPU ms per bound pod."""
    rows = []
    for name, summary in summaries:
        cost = summary.get("component_cost")
        if not isinstance(cost, dict):
            continue
        by_name = {row["component"]: row for row in cost.get("components") or []}
        cells = [Cell(name)]
        for component in COMPONENTS:
            row = by_name.get(component)
            cells.append(Cell("%s %% (%s ms)" % (_number(row["share_of_host_percent"]),
                                                 _number(row["cpu_ms_per_pod"], 2)) if row else ""))
        cells.append(Cell("%s %%" % _number(cost.get("other_percent"))))
        rows.append(cells)
    if not rows:
        return None
    return Table(["Scheduler"] + list(COMPONENTS) + ["others"], rows,
                 "Where the host's CPU went: each component's share of the host's CPU time (CPU ms per bound pod)")


def requests_table(summaries):
    """Who asked the API server what: requests per bound pod by role, the peak in flight and the busiest clients."""
    rows = []
    for name, summary in summaries:
        requests = summary.get("api_requests")
        if not isinstance(requests, dict):
            continue
        roles = requests.get("by_role") or {}
        busiest = ["%s %s" % (entry["component"], _number(entry.get("per_bound_pod"), 2))
                   for entry in (requests.get("by_component") or [])[:3]]
        rows.append([Cell(name), Cell(_number(requests.get("per_bound_pod"), 2))]
                    + [Cell(_number((roles.get(role) or {}).get("per_bound_pod"), 2)) for role in ROLES]
                    + [Cell(str(requests.get("inflight_peak", ""))), Cell(", ".join(busiest))])
    if not rows:
        return None
    return Table(["Scheduler", "All"] + list(ROLES) + ["Peak in flight", "Busiest clients"], rows,
                 "API requests per bound pod, by who asked (from the audit log)")


def _first(views, kind):
    """The first view of a kind among a process's figures: counts (a dict of ints), histogram, busiest (a list)."""
    for key, figure in views.items():
        if kind == "counts" and isinstance(figure, dict) and figure and all(isinstance(v, int) for v in figure.values()):
            return key, figure
        if kind == "histogram" and isinstance(figure, dict) and figure.get("estimate"):
            return key, figure
        if kind == "busiest" and isinstance(figure, list) and figure:
            return key, figure
    return None, None


def _busiest_text(figure):
    label = next(key for key in figure[0] if key not in ("count", "total_ms", "mean_ms"))
    total = sum(row["total_ms"] for row in figure) or 1.0
    return ", ".join("%s %s ms (%d %%)" % (row[label], _number(row["total_ms"]), round(100 * row["total_ms"] / total))
                     for row in figure[:2])


def internals_rows(name, summary):
    """Per process of the scheduler (its descriptor's views, in summary.json's internals): what it counted, how long
    one took, and where its time went."""
    internals = summary.get("internals")
    if not isinstance(internals, dict):
        return []
    rows = []
    for process, views in sorted((internals.get("processes") or {}).items()):
        if process in CONTROL_PLANE:
            continue
        counts_key, counts = _first(views, "counts")
        histogram_key, histogram = _first(views, "histogram")
        busiest_key, busiest = _first(views, "busiest")
        rows.append([
            Cell(name), Cell(process),
            Cell("%s: %s" % (counts_key, ", ".join("%s %d" % item for item in counts.items())) if counts else ""),
            Cell("%s: %d, p50 %s, p99 %s ms" % (histogram_key, histogram["count"], _number(histogram["p50_ms"], 2),
                                                 _number(histogram["p99_ms"], 2)) if histogram else ""),
            Cell("%s: %s" % (busiest_key, _busiest_text(busiest)) if busiest else ""),
        ])
    for process, why in sorted((internals.get("unread") or {}).items()):
        if process not in CONTROL_PLANE:
            rows.append([Cell(name), Cell(process), Cell("not read: " + why), Cell(""), Cell("")])
    return rows


def internals_table(summaries):
    rows = [row for name, summary in summaries for row in internals_rows(name, summary)]
    if not rows:
        return None
    return Table(["Scheduler", "Process", "Counted", "One took (estimate)", "Where the time went"], rows,
                 "What each scheduler's own metrics say (difference of the scrapes before and after the load; "
                 "time where the observations overlap, as concurrent bindings do, adds up)")


def cost_of(summary, component):
    """A component's entry of summary.json's component_cost, or None."""
    for row in (summary.get("component_cost") or {}).get("components") or []:
        if row["component"] == component:
            return row
    return None


def _requests_of(summary, role):
    return ((summary.get("api_requests") or {}).get("by_role") or {}).get(role) or {}


def explanation(summaries):
    """A paragraph on why the fastest and the slowest scheduler (by throughput) differ, from their figures."""
    ranked = [(summary.get("throughput_pods_per_s"), name, summary) for name, summary in summaries
              if isinstance(summary.get("throughput_pods_per_s"), (int, float))]
    if len(ranked) < 2:
        return None
    ranked.sort(key=lambda item: (-item[0], item[1]))
    (fast_rate, fast, fast_summary), (slow_rate, slow, slow_summary) = ranked[0], ranked[-1]
    sentences = ["%s bound %s pods/s and %s %s pods/s (makespans %s and %s s)." % (
        fast, _number(fast_rate), slow, _number(slow_rate), _number(fast_summary.get("makespan_s"), 2),
        _number(slow_summary.get("makespan_s"), 2))]
    fast_cost, slow_cost = cost_of(fast_summary, SCHEDULER), cost_of(slow_summary, SCHEDULER)
    if fast_cost and slow_cost:
        sentences.append("Per bound pod, %s's own processes used %s ms of CPU against %s's %s ms (%s %% and %s %% of "
                         "the host)." % (slow, _number(slow_cost["cpu_ms_per_pod"], 2), fast,
                                         _number(fast_cost["cpu_ms_per_pod"], 2),
                                         _number(slow_cost["share_of_host_percent"]),
                                         _number(fast_cost["share_of_host_percent"])))
    fast_api, slow_api = cost_of(fast_summary, "kube-apiserver"), cost_of(slow_summary, "kube-apiserver")
    if fast_api and slow_api:
        sentences.append("The API server used %s ms per pod under %s and %s ms under %s." % (
            _number(slow_api["cpu_ms_per_pod"], 2), slow, _number(fast_api["cpu_ms_per_pod"], 2), fast))
    fast_asks, slow_asks = _requests_of(fast_summary, SCHEDULER), _requests_of(slow_summary, SCHEDULER)
    if fast_asks and slow_asks:
        sentences.append("%s's processes made %s API requests per pod, %s's %s; all clients together %s and %s." % (
            slow, _number(slow_asks.get("per_bound_pod"), 2), fast, _number(fast_asks.get("per_bound_pod"), 2),
            _number((slow_summary.get("api_requests") or {}).get("per_bound_pod"), 2),
            _number((fast_summary.get("api_requests") or {}).get("per_bound_pod"), 2)))
    for name, summary in ((slow, slow_summary), (fast, fast_summary)):
        for process, views in sorted(((summary.get("internals") or {}).get("processes") or {}).items()):
            key, busiest = _first(views, "busiest")
            if busiest and process not in CONTROL_PLANE:
                sentences.append("%s's %s spent its time in %s (%s)." % (name, process, _busiest_text(busiest), key))
                break
    return " ".join(sentences)


def why_blocks(run, host_name):
    """The host's "why" section; none when no scheduler recorded any of its figures."""
    summaries = _summaries(run, host_name)
    tables = [table for table in (cpu_table(summaries), requests_table(summaries), internals_table(summaries))
              if table is not None]
    if not tables:
        return []
    blocks = [Heading(3, "Why each scheduler is as fast as it is", "why-" + slug(host_name)), Paragraph(NOTE)]
    text = explanation(summaries)
    if text:
        blocks.append(Paragraph(text))
    return blocks + tables
