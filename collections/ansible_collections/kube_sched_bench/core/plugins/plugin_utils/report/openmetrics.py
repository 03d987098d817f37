# -*- coding: utf-8 -*-
"""Every figure of a run as OpenMetrics text (metrics.prom beside the report): each number of every summary.json of
the run (metric_names.py names it) as a gauge, labelled with the run, host, scheduler, repeat, scenario, runtime
and versions. Ready for node_exporter's textfile collector, a Pushgateway or `promtool tsdb create-blocks-from`;
valid for `promtool check metrics`. No timestamps: the run's time is the ``run`` label's and summary.json's.
No I/O here: task.py writes the text.
"""
from __future__ import annotations

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.metric_names import figures

METRICS_FILE = "metrics.prom"
# The labels every sample carries, in this order (then a figure's own: process, tenant ...).
LABELS = ("run", "host", "scheduler", "repeat", "scenario", "runtime", "version_set", "kubernetes_version",
          "scheduler_version")


def sample_labels(run_id, result, sample):
    """The labels of one repeat's numbers: where, what and on which versions they were measured."""
    summary, env = sample.summary or {}, sample.env or {}
    versions = env.get("versions") if isinstance(env.get("versions"), dict) else {}
    pins = versions.get("pins") if isinstance(versions.get("pins"), dict) else {}
    return {
        "run": run_id, "host": result.host, "scheduler": result.name, "repeat": str(sample.repeat),
        "scenario": str(summary.get("scenario") or "burst"), "runtime": str(env.get("runtime") or ""),
        "version_set": str(versions.get("set") or ""), "kubernetes_version": str(pins.get("kubernetes") or ""),
        "scheduler_version": result.version or str(pins.get(result.name) or ""),
    }


def escape(value):
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def format_value(value):
    return "%.15g" % value


def families(run):
    """{metric name: {"unit", "help", "samples": [(labels dict, value)]}} of every measured repeat of the run."""
    found, seen = {}, set()
    for host in run.hosts.values():
        for result in host.schedulers.values():
            for sample in result.measured:
                common = sample_labels(run.run_id, result, sample)
                for figure in figures(sample.summary):
                    labels = dict(common, **dict(figure.labels))
                    key = (figure.name, tuple(sorted(labels.items())))
                    if key in seen:
                        continue
                    seen.add(key)
                    family = found.setdefault(figure.name, {"unit": figure.unit, "help": _help(figure), "samples": []})
                    family["samples"].append((labels, figure.value))
    return found


def _help(figure):
    text = "summary.json's %s" % figure.source
    if figure.unit:
        text += ", in %s" % figure.unit
    return text + " (docs/metrics.md)"


def render_openmetrics(run):
    """metrics.prom's text for a run (model.Run): a family per figure, sorted by name, then ``# EOF``."""
    lines = []
    for name, family in sorted(families(run).items()):
        lines.append("# TYPE %s gauge" % name)
        if family["unit"]:
            lines.append("# UNIT %s %s" % (name, family["unit"]))
        lines.append("# HELP %s %s" % (name, escape(family["help"])))
        for labels, value in family["samples"]:
            text = ",".join('%s="%s"' % (label, escape(str(labels[label]))) for label in labels)
            lines.append("%s{%s} %s" % (name, text, format_value(value)))
    lines.append("# EOF")
    return "\n".join(lines) + "\n"
