# -*- coding: utf-8 -*-
"""How busy the host was while a load test ran, read from /proc.

The CPU time the whole host spent busy (/proc/stat) minus what the benchmark's own processes spent (the
cluster's components, kwok, the scheduler and the load test, named by their pid files, with their descendants:
/proc/<pid>/stat) is what other processes took; with a virtual machine's steal time, as another guest's work
takes the host's CPUs too. ``sample`` reads /proc (its root is a parameter, so the tests give it made-up
files); ``summarize`` compares two samples into summary.json's ``host_load``; ``describe`` says it in a sentence
for the report and the gate.
"""
from __future__ import annotations

import os
import time
from collections import namedtuple

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.pid_file import pid_files_in

# /proc/stat's first line: user nice system idle iowait irq softirq steal (guest and guest_nice are already in
# user and nice). Busy is everything but idle and iowait.
_BUSY_FIELDS = (0, 1, 2, 5, 6, 7)
_ALL_FIELDS = 8
# /proc/<pid>/stat fields after the command name's last ')', 0-based: state 0, ppid 1, utime 11, stime 12,
# cutime 13, cstime 14, starttime 19.
_PPID, _UTIME, _STIME, _CUTIME, _CSTIME, _START = 1, 11, 12, 13, 14, 19
TOP_OTHER = 5

# ticks: the process's own CPU (utime + stime); children: its reaped children's (cutime + cstime); started:
# its start time, which tells a pid used again from the same process.
Process = namedtuple("Process", "pid ppid name ticks children started")
Sample = namedtuple("Sample", "time busy total cpus loadavg processes own")


def parse_cpu_line(text):
    """(busy ticks, all ticks, online CPUs) from the text of /proc/stat."""
    busy = total = cpus = 0
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        if fields[0] == "cpu":
            values = [int(value) for value in fields[1:_ALL_FIELDS + 1]]
            values += [0] * (_ALL_FIELDS - len(values))
            busy, total = sum(values[index] for index in _BUSY_FIELDS), sum(values)
        elif fields[0].startswith("cpu") and fields[0][3:].isdigit():
            cpus += 1
    return busy, total, cpus


def parse_loadavg(text):
    """The 1-minute load average from the text of /proc/loadavg."""
    return float(text.split()[0])


def parse_process(pid, text):
    """The Process of the text of /proc/<pid>/stat (the command name may hold spaces and parentheses)."""
    name = text[text.index("(") + 1:text.rindex(")")]
    tail = text[text.rindex(")") + 1:].split()
    return Process(pid, int(tail[_PPID]), name, int(tail[_UTIME]) + int(tail[_STIME]),
                   int(tail[_CUTIME]) + int(tail[_CSTIME]), int(tail[_START]))


def _read(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return handle.read()


def read_processes(proc_root="/proc"):
    """{pid: Process} of every process; one that ends while it is read is left out."""
    found = {}
    for entry in os.listdir(proc_root):
        if not entry.isdigit():
            continue
        try:
            found[int(entry)] = parse_process(int(entry), _read(os.path.join(proc_root, entry, "stat")))
        except (OSError, ValueError, IndexError):
            continue
    return found


def descendants(processes, roots):
    """The pids of ``roots`` that are alive in ``processes`` and of all their descendants."""
    children = {}
    for process in processes.values():
        children.setdefault(process.ppid, []).append(process.pid)
    found, todo = set(), [pid for pid in roots if pid in processes]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def pids_of(pid_dirs=(), pid_files=()):
    """The pids written in the ``*.pid`` files of ``pid_dirs`` and in ``pid_files`` (missing or empty ones are
    skipped: a component may not run on this runtime)."""
    paths = list(pid_files) + pid_files_in(pid_dirs)
    pids = []
    for path in paths:
        try:
            text = _read(path).strip()
        except OSError:
            continue
        if text.isdigit():
            pids.append(int(text))
    return pids


def sample(own_roots, proc_root="/proc", clock=time.monotonic):
    """The host's CPU counters, load average and processes now; ``own`` is the set of the benchmark's pids
    (``own_roots`` and their descendants)."""
    busy, total, cpus = parse_cpu_line(_read(os.path.join(proc_root, "stat")))
    processes = read_processes(proc_root)
    return Sample(clock(), busy, total, cpus, parse_loadavg(_read(os.path.join(proc_root, "loadavg"))),
                  processes, descendants(processes, own_roots))


def spent_since(process, before, with_children):
    """Ticks ``process`` spent since the sample ``before`` (all of them if it started since)."""
    earlier = before.get(process.pid)
    if earlier is not None and earlier.started != process.started:
        earlier = None
    ticks = process.ticks - (earlier.ticks if earlier else 0)
    if with_children:
        ticks += process.children - (earlier.children if earlier else 0)
    return max(ticks, 0)


def _percent(ticks, total):
    return round(100.0 * ticks / total, 1)


def summarize(start, end, threshold=None):
    """summary.json's ``host_load`` from two samples: the share of the host's CPU time (all its CPUs) that other
    processes and the benchmark's own took, the load average at both ends, the busiest other processes, and
    ``busy`` (other processes above ``threshold`` %; None without a threshold or a measurable window)."""
    total = end.total - start.total
    busy_ticks = end.busy - start.busy
    # The benchmark's own processes, with what their reaped children spent (a probe run by a kind node's kubelet).
    own = sum(spent_since(end.processes[pid], start.processes, True) for pid in end.own)
    others = sorted(((spent_since(process, start.processes, False), process) for pid, process in end.processes.items()
                     if pid not in end.own), key=lambda item: (-item[0], item[1].pid))
    load = {
        "cpus": end.cpus,
        "window_s": round(end.time - start.time, 3),
        "other_cpu_percent": None,
        "own_cpu_percent": None,
        "loadavg_before": start.loadavg,
        "loadavg_after": end.loadavg,
        "busy": None,
        "threshold_percent": threshold,
        "top_other": [],
        "own_processes": len(end.own),
    }
    if total <= 0:
        return load
    own = min(own, busy_ticks)
    load["other_cpu_percent"] = _percent(max(busy_ticks - own, 0), total)
    load["own_cpu_percent"] = _percent(own, total)
    load["top_other"] = [{"pid": process.pid, "name": process.name, "cpu_percent": _percent(ticks, total)}
                         for ticks, process in others[:TOP_OTHER] if ticks > 0]
    if threshold is not None:
        load["busy"] = load["other_cpu_percent"] > threshold
    return load


def _number(value):
    return "%g" % value


def describe(load):
    """'other processes used 61 % of the host's 2 CPUs (over the 25 % threshold; the busiest: yes 48 %, yes 12 %),
    load average 0.52 before and 2.1 after' for a ``host_load``; None without a figure."""
    if not isinstance(load, dict) or load.get("other_cpu_percent") is None:
        return None
    cpus = load.get("cpus")
    notes = []
    if load.get("threshold_percent") is not None:
        notes.append("%s the %s %% threshold" % ("over" if load.get("busy") else "within",
                                                 _number(load["threshold_percent"])))
    top = [entry for entry in load.get("top_other") or [] if isinstance(entry, dict)][:2]
    if top:
        notes.append("the busiest: " + ", ".join("%s %s %%" % (entry.get("name"), _number(entry.get("cpu_percent", 0)))
                                                 for entry in top))
    text = "other processes used %s %% of the host's %s" % (
        _number(load["other_cpu_percent"]), "%s CPU%s" % (cpus, "" if cpus == 1 else "s") if cpus else "CPUs")
    if notes:
        text += " (%s)" % "; ".join(notes)
    if load.get("loadavg_before") is not None and load.get("loadavg_after") is not None:
        text += ", load average %s before and %s after" % (_number(load["loadavg_before"]),
                                                           _number(load["loadavg_after"]))
    return text


def over_repeats(loads):
    """How busy the host was over a result's repeats (their ``host_load``, None where a repeat recorded none):
    {"repeats": those with a figure, "busy_repeats": those marked busy, "worst": the busy repeat's (else any
    repeat's) host_load where other processes used the most}; None when no repeat has a figure."""
    measured = [load for load in loads if isinstance(load, dict) and load.get("other_cpu_percent") is not None]
    if not measured:
        return None
    busy = [load for load in measured if load.get("busy")]
    worst = max(busy or measured, key=lambda load: load["other_cpu_percent"])
    return {"repeats": len(measured), "busy_repeats": len(busy), "worst": worst}


def describe_repeats(over):
    """describe() of the worst repeat, and in how many repeats the host was busy when there were several."""
    text = describe(over["worst"])
    if over["repeats"] > 1:
        text += "; busy in %d of %d repeats, the figures are the busiest one's" % (over["busy_repeats"],
                                                                                   over["repeats"])
    return text
