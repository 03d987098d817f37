# -*- coding: utf-8 -*-
"""summary.json's ``internals``: what the scheduler's and the control plane's own metrics say happened during the
load test, from the difference of two scrapes of each process (metrics/scrape.py) taken just before the load and
once its last pod was bound. Pure functions; docs/metrics.md ("The scheduler's internals") defines each figure.

Which series explain a process is declared with the process: a scheduler's in its descriptor
(module_utils/schedulers/<name>.py, ``internals``: {process: [view, ...]}, the shared ones in
module_utils/schedulers/views.py), the control plane's here (CONTROL_PLANE). A view is a dict:
  - {"key", "view": "counts", "metric", "label"}: a counter's increase by the values of one label;
  - {"key", "view": "total", "metric"}: a counter's increase, all series together;
  - {"key", "view": "histogram", "metric", "unit_ms", "where", "exclude"}: a histogram's observations, their sum and
    mean, and p50/p90/p99 estimated from its buckets (exposition.histogram_quantile), in milliseconds;
  - {"key", "view": "busiest", "metric", "label", "unit_ms", "top"}: a histogram's observations and total time by the
    values of one label, the ``top`` busiest by total time first.
``metric`` of a histogram is its base name (without _bucket, _sum, _count); ``unit_ms`` turns its unit into ms.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import exposition
from ansible_collections.kube_sched_bench.core.plugins.module_utils.schedulers.views import SECONDS

NO_ENDPOINT = ("no metrics endpoint of it was given to the load test (an external cluster's API server is the only "
               "one it reaches; on kind, the control plane's, kube-scheduler's and those a scheduler's kind tasks "
               "record are read inside the node)")
QUANTILES = (("p50_ms", 0.5), ("p90_ms", 0.9), ("p99_ms", 0.99))
ESTIMATE = "histogram_quantile"

CONTROL_PLANE = {
    "kube-apiserver": [
        {"key": "requests_by_verb", "view": "counts", "metric": "apiserver_request_total", "label": "verb"},
        {"key": "busiest_resources", "view": "busiest", "metric": "apiserver_request_duration_seconds",
         "label": "resource", "unit_ms": SECONDS, "top": 8, "exclude": {"verb": ["WATCH", "CONNECT"]}},
        {"key": "request_duration", "view": "histogram", "metric": "apiserver_request_duration_seconds",
         "unit_ms": SECONDS, "exclude": {"verb": ["WATCH", "CONNECT"]}},
    ],
    "etcd": [
        {"key": "proposals_committed", "view": "total", "metric": "etcd_server_proposals_committed_total"},
        {"key": "wal_fsync", "view": "histogram", "metric": "etcd_disk_wal_fsync_duration_seconds", "unit_ms": SECONDS},
        {"key": "backend_commit", "view": "histogram", "metric": "etcd_disk_backend_commit_duration_seconds",
         "unit_ms": SECONDS},
    ],
    "kube-controller-manager": [
        {"key": "queue_adds", "view": "counts", "metric": "workqueue_adds_total", "label": "name", "top": 6},
        {"key": "busiest_queues", "view": "busiest", "metric": "workqueue_work_duration_seconds", "label": "name",
         "unit_ms": SECONDS, "top": 6},
    ],
}


def _ms(value):
    return None if value is None else round(value, 3)


def _filtered(series, view):
    """The series of a {labels: value} that match the view's ``where`` and none of its ``exclude``."""
    where, exclude = view.get("where") or {}, view.get("exclude") or {}
    return {labels: value for labels, value in series.items()
            if exposition.matches(labels, where)
            and not any(dict(labels).get(name) in values for name, values in exclude.items())}


def _histogram(before, after, view):
    metric, unit = view["metric"], view.get("unit_ms", 1.0)
    count = sum(_filtered(exposition.increase(before, after, metric + "_count"), view).values())
    total = sum(_filtered(exposition.increase(before, after, metric + "_sum"), view).values()) * unit
    cumulative = exposition.buckets(_filtered(exposition.increase(before, after, metric + "_bucket"), view))
    figures = {"count": int(round(count)), "sum_ms": _ms(total), "mean_ms": _ms(total / count) if count else None}
    for key, fraction in QUANTILES:
        estimate = exposition.histogram_quantile(fraction, cumulative)
        figures[key] = _ms(estimate * unit) if estimate is not None else None
    figures["estimate"] = ESTIMATE
    figures["bounds_ms"] = [_ms(bound * unit) for bound, _ in cumulative if bound != float("inf")]
    return figures


def _counts(before, after, view):
    grown = exposition.by_label(_filtered(exposition.increase(before, after, view["metric"]), view), view["label"])
    ordered = sorted(((key, int(round(value))) for key, value in grown.items() if value > 0),
                     key=lambda item: (-item[1], item[0]))
    return dict(ordered[:view["top"]] if view.get("top") else ordered)


def _busiest(before, after, view):
    metric, unit, label = view["metric"], view.get("unit_ms", 1.0), view["label"]
    totals = exposition.by_label(_filtered(exposition.increase(before, after, metric + "_sum"), view), label)
    counts = exposition.by_label(_filtered(exposition.increase(before, after, metric + "_count"), view), label)
    rows = [{label: key, "count": int(round(counts.get(key, 0))), "total_ms": _ms(value * unit),
             "mean_ms": _ms(value * unit / counts[key]) if counts.get(key) else None}
            for key, value in totals.items() if counts.get(key)]
    rows.sort(key=lambda row: (-row["total_ms"], row[label]))
    return rows[:view.get("top", 5)]


VIEWS = {
    "counts": _counts,
    "total": lambda before, after, view: int(round(sum(_filtered(
        exposition.increase(before, after, view["metric"]), view).values()))),
    "histogram": _histogram,
    "busiest": _busiest,
}


def figures(before, after, views):
    """{view key: figure} of one process from its two parsed scrapes. A metric the process did not expose (yet)
    gives an empty figure, not an error: a series appears with its first observation."""
    return {view["key"]: VIEWS[view["view"]](before or {}, after, view) for view in views}


def summarize(scrapes_before, scrapes_after, specs, window_s):
    """summary.json's ``internals`` from the scrape_all results at both ends, ``specs`` {process: views} (the
    scheduler's descriptor's and CONTROL_PLANE), over a window of ``window_s`` seconds."""
    processes, unread = {}, {}
    for process, views in specs.items():
        start, end = scrapes_before.get(process), scrapes_after.get(process)
        if end is None:
            unread[process] = NO_ENDPOINT
            continue
        problem = (start or {}).get("error") or end.get("error")
        if problem:
            unread[process] = problem
            continue
        processes[process] = figures(start["scrape"], end["scrape"], views)
    return {
        "window_s": round(window_s, 3) if window_s is not None else None,
        "processes": processes,
        "unread": unread,
        "scrape_bytes": sum(entry.get("bytes", 0) for scrapes in (scrapes_before, scrapes_after)
                            for entry in scrapes.values()),
        "scrape_seconds": round(sum(entry.get("seconds", 0) for scrapes in (scrapes_before, scrapes_after)
                                    for entry in scrapes.values()), 3),
    }
