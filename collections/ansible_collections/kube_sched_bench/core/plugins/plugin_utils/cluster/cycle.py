# -*- coding: utf-8 -*-
"""The schedulers' cycle settings, the ones that bound their pace: written where a process or a release takes them,
and read back from what a scheduler runs with (docs/runtimes-and-schedulers.md#cycle-settings).

Three places hold them, whichever scheduler has them: a command-line flag taking a Go duration (a period between
cycles), a key of a ConfigMap's data taking a Go duration (an interval between cycles), and the fields of a
KubeSchedulerConfiguration (kube-scheduler and its builds). Each scheduler's task files say which one it reads
(roles/scheduler/tasks/<scheduler>/<runtime>.yml); what is read is recorded as ``cycle`` in ``scheduler_deployed``
and env.json. No I/O here.
"""
from __future__ import annotations

import copy
import re

import yaml

# A command-line flag that takes the period between cycles, as a Go duration: the name it is recorded under.
PERIOD_FLAGS = {"--schedule-period": "schedule_period_s"}
# A configuration key (a ConfigMap's data) that takes the interval between cycles, as a Go duration.
INTERVAL_KEYS = {"service.schedulingInterval": "scheduling_interval_s"}
# KubeSchedulerConfiguration: field -> (name recorded, upstream's value when the field is not set).
KUBE_SCHEDULER_FIELDS = {"parallelism": ("parallelism", 16),
                         "percentageOfNodesToScore": ("percentage_of_nodes_to_score", 0)}
KUBE_SCHEDULER_KIND = "KubeSchedulerConfiguration"

_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")


def go_duration(seconds):
    """A number of seconds as a Go duration (time.ParseDuration): 1 -> "1s", 0.5 -> "500ms", 0.0002 -> "200us"."""
    value = float(seconds)
    if value < 0:
        raise ValueError("a duration of %r seconds is negative" % (seconds,))
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        count = value / scale
        if abs(count - round(count)) < 1e-6 and round(count) >= 1:
            return "%d%s" % (round(count), unit)
    return "%dns" % max(1, round(value * 1e9))


def duration_seconds(text):
    """The seconds of a Go duration ("1s", "500ms", "1m30s", "0s"); ValueError for anything else."""
    text = str(text).strip()
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    if body == "0":
        return 0.0
    parts = _PART.findall(body)
    if not body or "".join(number + unit for number, unit in parts) != body:
        raise ValueError("%r is not a Go duration" % (text,))
    return sign * round(sum(float(number) * _UNITS[unit] for number, unit in parts), 9)


def flag_value(argv, flag, default=None):
    """The value of ``flag`` on a command line (a list, or /proc/<pid>/cmdline's NUL-separated text): its last
    ``--flag=value`` or ``--flag value``, or ``default`` when it is not there."""
    if isinstance(argv, str):
        argv = [arg for arg in argv.split("\0") if arg]
    value = default
    args = [str(arg) for arg in argv or []]
    for index, arg in enumerate(args):
        if arg.startswith(flag + "="):
            value = arg[len(flag) + 1:]
        elif arg == flag and index + 1 < len(args):
            value = args[index + 1]
    return value


def kube_scheduler_cycle(config):
    """{parallelism, percentage_of_nodes_to_score} of a KubeSchedulerConfiguration: a file's (its fields in camel
    case) or the running process's /configz (``componentconfig``, its fields capitalised); upstream's value for a
    field that is not set. An empty one gives upstream's values, what a kube-scheduler without a file runs with."""
    config = (config or {}).get("componentconfig", config or {})
    cycle = {}
    for field, (name, upstream) in KUBE_SCHEDULER_FIELDS.items():
        value = config.get(field, config.get(field[0].upper() + field[1:]))
        cycle[name] = int(value) if value is not None else upstream
    return cycle


def _configs(doc):
    """(key, parsed YAML) of each entry of a ConfigMap's data that is a YAML mapping."""
    for key, text in ((doc.get("data") or {}).items() if doc.get("kind") == "ConfigMap" else ()):
        try:
            parsed = yaml.safe_load(str(text))
        except yaml.YAMLError:
            continue
        if isinstance(parsed, dict):
            yield key, parsed


def _name(doc):
    meta = doc.get("metadata") or {}
    return "%s %s/%s" % (doc.get("kind"), meta.get("namespace", ""), meta.get("name", ""))


def _containers(doc):
    spec = ((doc.get("spec") or {}).get("template") or {}).get("spec") or {}
    return list(spec.get("initContainers") or []) + list(spec.get("containers") or [])


def release_cycle_knobs(docs, period=None, parallelism=None, percentage=None):
    """Copies of a release's ``docs`` with the cycle settings where the release has a place for them, and one line
    per object changed: the period (seconds) replaces the value of a period flag a container already passes (none is
    added: a binary may not know it), ``parallelism`` and ``percentage`` (of nodes to score) go into each
    KubeSchedulerConfiguration of a ConfigMap. A None setting is left as the release has it."""
    docs, applied = copy.deepcopy(list(docs or [])), []
    for doc in docs:
        for container in _containers(doc) if period is not None else ():
            args = container.get("args") or []
            for index, arg in enumerate(args):
                flag = str(arg).split("=", 1)[0]
                if flag in PERIOD_FLAGS and "=" in str(arg):
                    args[index] = "%s=%s" % (flag, go_duration(period))
                    applied.append("%s: %s %s" % (_name(doc), container.get("name"), args[index]))
        settings = {"parallelism": parallelism, "percentageOfNodesToScore": percentage}
        settings = {field: int(value) for field, value in settings.items() if value is not None}
        for key, config in _configs(doc):
            if config.get("kind") == KUBE_SCHEDULER_KIND and settings:
                config.update(settings)
                doc["data"][key] = yaml.safe_dump(config, default_flow_style=False, sort_keys=False)
                applied.append("%s: %s %s" % (_name(doc), key, ", ".join(
                    "%s=%s" % item for item in sorted(settings.items()))))
    return docs, applied


def release_cycle(text):
    """The cycle settings of a release as it is applied (multi-document YAML text, or its documents): each period
    flag a container passes, each interval key of a ConfigMap's data (Go durations, in seconds) and each
    KubeSchedulerConfiguration of a ConfigMap (upstream's values for fields it does not set)."""
    docs = text if isinstance(text, list) else [doc for doc in yaml.safe_load_all(str(text or "")) if doc]
    cycle = {}
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        for container in _containers(doc):
            for flag, name in PERIOD_FLAGS.items():
                value = flag_value(list(container.get("command") or []) + list(container.get("args") or []), flag)
                if value is not None:
                    cycle[name] = duration_seconds(value)
        for key, name in INTERVAL_KEYS.items():
            if doc.get("kind") == "ConfigMap" and key in (doc.get("data") or {}):
                cycle[name] = duration_seconds(doc["data"][key])
        for _, config in _configs(doc):
            if config.get("kind") == KUBE_SCHEDULER_KIND:
                cycle.update(kube_scheduler_cycle(config))
    return cycle
