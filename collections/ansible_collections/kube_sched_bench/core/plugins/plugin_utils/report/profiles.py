# -*- coding: utf-8 -*-
"""The host section's Go profiles (bench_scheduler_cpu_profile_seconds): per scheduler with a profiles.json
(roles/loadtest/tasks/profiles.yml), a table per profile of its top functions by flat share and by cumulative share,
as go tool pprof -top read them on the host (module_utils/metrics/pprof_top.py). No I/O here."""
from __future__ import annotations

import re

from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.report.blocks import Cell, Heading, Paragraph, Table, slug

TOP = 10
# Characters of a function's name in a table: two names side by side still fit a 1,280 px page.
NAME_WIDTH = 46
COMPONENTS = {"scheduler": "the scheduler", "apiserver": "kube-apiserver"}
KIND_TITLES = {"cpu": "CPU", "heap": "heap in use"}
NOTE = ("Go profiles taken during the load test (bench_scheduler_cpu_profile_seconds): a CPU profile over its first "
        "seconds and a heap profile (the memory in use, after a garbage collection) once it had finished, of the "
        "scheduler and of kube-apiserver, read with go tool pprof -top. A function's flat share is what was sampled "
        "in the function itself, its cumulative share what was sampled in it and in everything it called, both as a "
        "share of the profile's total; the shares are pprof's. Names are shortened (the package path to its last "
        "element); the .pprof files beside the results hold everything (go tool pprof -top <file>).")
_GENERIC = re.compile(r"\[[^\[\]]*\]")


def short_name(name, width=NAME_WIDTH):
    """A Go function's name for a table: its package path cut to the last element
    (k8s.io/kubernetes/pkg/scheduler.(*Scheduler).scheduleOne: scheduler.(*Scheduler).scheduleOne), type parameters as
    [...], at most ``width`` characters (the end kept: the method names the function)."""
    # Innermost brackets first, each to a character without brackets, so that the ones around them match next.
    text, previous = name, None
    while previous != text:
        previous, text = text, _GENERIC.sub("\x00", text)
    text = text.replace("\x00", "[\u2026]")
    head, sep, tail = text.rpartition("/")
    if sep and "(" not in head:
        text = tail
    if len(text) > width:
        text = "\u2026" + text[-(width - 1):]
    return text


def format_amount(value, unit):
    """A profile's value with its unit: 1.2 s, 340 ms, 12.5 MB, 512 kB, or a plain count."""
    if value is None:
        return ""
    if unit == "s":
        return "%.3g s" % value if value >= 1 else "%.3g ms" % (value * 1000)
    if unit == "B":
        for factor, name in ((2 ** 30, "GB"), (2 ** 20, "MB"), (2 ** 10, "kB")):
            if value >= factor:
                return "%.3g %s" % (value / factor, name)
        return "%d B" % value
    return "%.4g" % value


def _share(value):
    return "%.1f %%" % value if isinstance(value, (int, float)) else ""


def profile_table(scheduler, name, entry, top=TOP):
    """The top ``top`` functions of one profile, by flat share on the left and by cumulative share on the right."""
    unit = entry.get("unit", "")
    by_flat = list(entry.get("functions") or [])[:top]
    by_cum = list(entry.get("functions_by_cum") or [])[:top]
    rows = []
    for rank in range(max(len(by_flat), len(by_cum))):
        row = [Cell(str(rank + 1))]
        for function, key in ((by_flat[rank] if rank < len(by_flat) else None, "flat"),
                              (by_cum[rank] if rank < len(by_cum) else None, "cum")):
            if function is None:
                row += [Cell(""), Cell(""), Cell("")]
            else:
                row += [Cell(short_name(function.get("function", ""))), Cell(format_amount(function.get(key), unit)),
                        Cell(_share(function.get(key + "_pct")))]
        rows.append(row)
    component, _, kind = name.rpartition("-")
    # The program pprof names (kube-scheduler, vc-scheduler, ...), else the component.
    program = entry.get("binary") or COMPONENTS.get(component, component)
    caption = "%s: %s %s, total %s" % (scheduler, program, KIND_TITLES.get(kind, kind), format_amount(entry.get("total"), unit))
    if entry.get("seconds"):
        caption += " over %s s" % entry["seconds"]
    caption += " (%s)" % entry.get("file", name + ".pprof")
    return Table(["#", "By flat share", "Flat", "Flat %", "By cumulative share", "Cum", "Cum %"], rows, caption)


def _profile_order(name):
    """The scheduler's profiles before kube-apiserver's, CPU before heap (profiles.json has its keys sorted)."""
    component, _, kind = name.rpartition("-")
    components, kinds = list(COMPONENTS), list(KIND_TITLES)
    return (components.index(component) if component in components else len(components), component,
            kinds.index(kind) if kind in kinds else len(kinds), kind)


def _profiled_sample(result):
    """The first repeat of a scheduler with profiles.json, or None."""
    for sample in result.samples:
        if isinstance(sample.profiles, dict) and sample.profiles:
            return sample
    return None


def scheduler_profile_blocks(host_name, result, sample):
    """A scheduler's heading, a table per profile read, and a line per profile that was not."""
    title = "Profiles of %s" % result.name
    if sample.repeat > 1 or len(result.samples) > 1:
        title += " (repeat %d)" % sample.repeat
    blocks = [Heading(3, title, "profiles-%s-%s" % (slug(host_name), slug(result.name)))]
    missing = []
    for name in sorted(sample.profiles, key=_profile_order):
        entry = sample.profiles[name]
        if not isinstance(entry, dict):
            continue
        if "skipped" in entry or "error" in entry:
            missing.append("%s: %s" % (name, entry.get("skipped") or entry.get("error")))
        elif not entry.get("functions"):
            missing.append("%s: nothing was sampled (total %s)" % (name, format_amount(entry.get("total"),
                                                                                       entry.get("unit", ""))))
        else:
            blocks.append(profile_table(result.name, name, entry))
    if missing:
        blocks.append(Paragraph("Not shown:\n" + "\n".join("- " + line for line in missing)))
    return blocks


def profile_blocks(run, host_name):
    """The host's profiles: a note and each profiled scheduler's tables; none when no scheduler has profiles.json."""
    host = run.hosts[host_name]
    blocks = []
    for name in run.scheduler_names:
        result = host.schedulers.get(name)
        sample = _profiled_sample(result) if result is not None else None
        if sample is not None:
            blocks += scheduler_profile_blocks(host_name, result, sample)
    return [Paragraph(NOTE)] + blocks if blocks else []
