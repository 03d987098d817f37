# -*- coding: utf-8 -*-
"""The report's chart data: pods bound and the backlog over time per host, latency and throughput per scheduler;
sched_report_render draws them as PNG. No I/O here."""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.aggregate import fleet_results, fleet_stat
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.blocks import BarChart, Image, LineChart, slug
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.model import LATENCY_KEYS, METRIC, Stat
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.run import CHARTS_DIR


def chart_image(chart):
    """The image block that shows a chart, by its file under the report's charts directory."""
    return Image(CHARTS_DIR + "/" + chart.file_name, chart.title)


def chart_file_names(hosts, prefix="bound-"):
    """A distinct PNG name per host, even when two names only differ in characters a file name cannot hold."""
    names, used = {}, set()
    for host in hosts:
        base = prefix + slug(host)
        name, count = base, 1
        while name in used:
            count += 1
            name = "%s-%d" % (base, count)
        used.add(name)
        names[host] = name + ".png"
    return names


def bound_curve(timeline):
    """(xs, ys) of pods bound over time: a timeline row counts binds up to the end of its second."""
    xs, ys = [0], [0]
    for second, bound_total in timeline:
        xs.append(second + 1)
        ys.append(bound_total)
    return xs, ys


def host_series(run, host, curve):
    """label -> curve(representative sample) for each scheduler of the host that has one."""
    series = {}
    for scheduler, result in run.hosts[host].schedulers.items():
        sample = result.representative()
        points = curve(sample) if sample is not None else None
        if not points:
            continue
        label = scheduler
        if len(result.usable_samples) > 1:
            label += " (repeat %d, median makespan)" % sample.repeat
        if not result.has_numbers:
            label += " (incomplete)"
        series[label] = points
    return series


def bound_chart(run, host, file_name):
    series = host_series(run, host, lambda sample: bound_curve(sample.timeline))
    if not series:
        return None
    return LineChart(file_name, "Pods bound over time on %s" % host, "seconds since the first job was created",
                     "pods bound", series)


def backlog_chart(run, host, file_name):
    """Created but unbound pods at the end of each second: a scheduler that keeps up stays near 0."""
    series = host_series(run, host, lambda sample: (
        [second + 1 for second, _ in sample.backlog], [value for _, value in sample.backlog]) if sample.backlog
        else None)
    if not series:
        return None
    return LineChart(file_name, "Backlog on %s: pods created but not yet bound" % host,
                     "seconds since the first job was created", "pods waiting for a node", series)


def latency_chart(run):
    schedulers = [name for name in run.scheduler_names if fleet_results(run, name)]
    series, ranges = {}, {}
    for key in LATENCY_KEYS:
        label = key.split("_")[1]
        stats = [fleet_stat(run, name, METRIC[key]) for name in schedulers]
        series[label] = [stat.median for stat in stats]
        ranges[label] = [(stat.low, stat.high) if stat.spread else None for stat in stats]
    values = [value for column in series.values() for value in column if value]
    if not values:
        return None
    title = "Scheduling latency per scheduler"
    if len(run.hosts) > 1:
        title += " (median of hosts, bars from min to max)"
    # Queueing schedulers can hold pods for seconds while others bind in milliseconds.
    log_scale = min(values) > 0 and max(values) / min(values) > 100
    return BarChart("latency.png", title, "milliseconds", schedulers, series, ranges, log_scale)


def throughput_chart(run):
    hosts = list(run.hosts)
    metric = METRIC["throughput_pods_per_s"]
    series, ranges = {}, {}
    for scheduler in run.scheduler_names:
        stats = [run.result(host, scheduler).stat(metric) if run.result(host, scheduler).has_numbers
                 else Stat(None, None, None, 0) for host in hosts]
        series[scheduler] = [stat.median for stat in stats]
        ranges[scheduler] = [(stat.low, stat.high) if stat.spread else None for stat in stats]
    if not any(value is not None for column in series.values() for value in column):
        return None
    title = "Mean throughput per host"
    if run.max_repeats > 1:
        title += " (median of repeats, bars from min to max)"
    return BarChart("throughput.png", title, "pods/s", hosts, series, ranges)
