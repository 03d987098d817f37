# -*- coding: utf-8 -*-
"""What each component of the benchmark cost during the load test, per bound pod: the scheduler, kube-apiserver,
etcd, kube-controller-manager, kwok and the load generator, from two samples of /proc (metrics/host_load.sample)
taken with the scrapes of metrics/scrape.py. docs/metrics.md ("Cost per pod, per component") defines each figure.

A process belongs to a component by its pid file (the binary runtime's <component>.pid, the scheduler's
scheduler_pid_files) or, inside a kind node (a descendant of own_pids), by its command name; the load generator is
this process with its reaped children. Pure functions over the samples, but ``peak_rss_kb``, which reads
/proc/<pid>/status.
"""
from __future__ import annotations

import os

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.guard import read_pid
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics import cost
from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.host_load import spent_since

SCHEDULER, LOADGEN, NODE = "scheduler", "load generator", "kind node (kubelet, containerd)"
CONTROL_PLANE = ("kube-apiserver", "etcd", "kube-controller-manager", "kwok")
# What the benchmark adds to a cluster to measure it: the fake nodes and the load generator (its audit log is the API
# server's own work, inside kube-apiserver's share).
HARNESS = ("kwok", "load generator")
# In the order the report shows them.
COMPONENTS = (SCHEDULER,) + CONTROL_PLANE + (LOADGEN,)
# Command names (/proc/<pid>/stat, 15 characters at most) of the control plane inside a kind node.
COMMANDS = {"kube-apiserver": "kube-apiserver", "etcd": "etcd", "kube-controller": "kube-controller-manager",
            "kwok": "kwok"}


def roles(pid_files, scheduler_pid_files, kind_roots, processes, own_pid, scheduler_commands=()):
    """{pid: component} of the processes that make up the benchmark now.

    ``pid_files``: the binary runtime's (and kwok's) pid files, named <component>.pid; ``scheduler_pid_files``:
    the scheduler's; ``kind_roots``: the kind nodes' first processes, whose descendants are told by command name
    (``scheduler_commands``: the scheduler's process names, cut to the 15 characters /proc shows);
    ``processes``: {pid: host_load.Process}."""
    found = {}
    for path in pid_files:
        name = os.path.basename(path)[:-len(".pid")]
        pid = read_pid(path)
        if name in CONTROL_PLANE and pid in processes:
            found[pid] = name
    for path in scheduler_pid_files:
        pid = read_pid(path)
        if pid in processes:
            found[pid] = SCHEDULER
    commands = {name[:15] for name in scheduler_commands}
    children = {}
    for process in processes.values():
        children.setdefault(process.ppid, []).append(process.pid)
    todo = [pid for pid in kind_roots if pid in processes]
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        command = processes[pid].name
        found[pid] = SCHEDULER if command in commands else COMMANDS.get(command, NODE)
        todo.extend(children.get(pid, ()))
    found[own_pid] = LOADGEN
    return found


def peak_rss_kb(pids, proc_root="/proc"):
    """{pid: VmHWM in kB} of the processes that can be read."""
    peaks = {}
    for pid in pids:
        try:
            with open(os.path.join(proc_root, str(pid), "status"), encoding="utf-8") as handle:
                status = cost.parse_status(handle.read())
        except OSError:
            continue
        peaks[pid] = status.get("VmHWM", status.get("VmRSS", 0))
    return peaks


def per_pod(value, pods, digits=3):
    """``value`` per bound pod, rounded to ``digits``; None when no pod was bound."""
    return round(value / float(pods), digits) if pods else None


def samples_record(start, end, pid_roles, peaks_kb, loadgen_peak=None, ticks_per_second=None):
    """component-samples.json: what ``summarize`` reads of the two samples, so that its figures can be recomputed
    from the result files (the host's CPU counters at both ends, and each process of a component at both ends)."""
    def counters(sample):
        return {"time": sample.time, "busy": sample.busy, "total": sample.total, "cpus": sample.cpus}

    def process(sample, pid):
        found = sample.processes.get(pid)
        return None if found is None else {"ticks": found.ticks, "children": found.children, "started": found.started}

    return {
        "ticks_per_second": ticks_per_second or cost.clock_ticks(),
        "before": counters(start),
        "after": counters(end),
        "loadgen_peak_kb": loadgen_peak,
        "processes": [{"pid": pid, "component": component, "name": end.processes[pid].name,
                       "before": process(start, pid), "after": process(end, pid), "peak_kb": peaks_kb.get(pid, 0)}
                      for pid, component in sorted(pid_roles.items()) if pid in end.processes],
    }


def summarize(start, end, pid_roles, peaks_kb, bound_pods, ticks_per_second=None, loadgen_peak_kb=None):
    """summary.json's ``component_cost`` from two host_load samples, the roles of the processes at the end
    ({pid: component}), their peak resident memory ({pid: kB}) and the pods bound meanwhile."""
    ticks_per_second = ticks_per_second or cost.clock_ticks()
    spent, peak, names = {}, {}, {}
    for pid, component in pid_roles.items():
        process = end.processes.get(pid)
        if process is None:
            continue
        # The load generator's reaped children (its submitter processes) count as its own.
        spent[component] = spent.get(component, 0) + spent_since(process, start.processes, component == LOADGEN)
        peak[component] = peak.get(component, 0) + peaks_kb.get(pid, 0)
        names.setdefault(component, set()).add(process.name)
    if loadgen_peak_kb is not None and LOADGEN in peak:
        peak[LOADGEN] = max(peak[LOADGEN], loadgen_peak_kb)
    window_ticks = end.total - start.total
    busy_ticks = end.busy - start.busy
    rows = []
    for component in COMPONENTS + tuple(sorted(set(spent) - set(COMPONENTS))):
        if component not in spent:
            continue
        seconds = spent[component] / float(ticks_per_second)
        rows.append({
            "component": component,
            "commands": sorted(names[component]),
            "cpu_seconds": round(seconds, 3),
            "cpu_ms_per_pod": per_pod(seconds * 1000.0, bound_pods),
            "share_of_host_percent": round(100.0 * spent[component] / window_ticks, 1) if window_ticks > 0 else None,
            "peak_rss_mb": round(peak[component] / 1024.0, 1),
            "peak_rss_kb_per_pod": per_pod(peak[component], bound_pods, 1),
        })
    counted = sum(spent.values())
    return {
        "window_s": round(end.time - start.time, 3),
        "cpus": end.cpus,
        "bound_pods": bound_pods,
        "host_busy_percent": round(100.0 * busy_ticks / window_ticks, 1) if window_ticks > 0 else None,
        "other_percent": (round(100.0 * max(busy_ticks - counted, 0) / window_ticks, 1) if window_ticks > 0
                          else None),
        "harness_percent": (round(100.0 * sum(spent.get(name, 0) for name in HARNESS) / window_ticks, 1)
                            if window_ticks > 0 else None),
        "components": rows,
    }
