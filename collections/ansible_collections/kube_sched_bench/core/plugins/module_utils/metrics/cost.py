# -*- coding: utf-8 -*-
"""What the scheduler's processes cost during a load test, read from /proc.

A sample records, per pid file, the process's CPU time (utime + stime from
/proc/<pid>/stat) and its peak resident memory (VmHWM from /proc/<pid>/status).
``cost`` compares a sample at the start with one at the end; ``own_cost`` is the
load test's own, from getrusage. Only file reads here, with the /proc root as a
parameter, so the parsing is unit-tested on made-up files.
"""
from __future__ import annotations

import os
import resource

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.guard import read_pid

# /proc/<pid>/stat fields after the command name (which may contain spaces and
# parentheses, so parsing starts after its last ')'): field 14 utime and
# 15 stime, in clock ticks; here 0-based after ')' as index 11 and 12.
_UTIME_AFTER_COMM = 11
_STIME_AFTER_COMM = 12


def clock_ticks():
    try:
        return os.sysconf("SC_CLK_TCK")
    except (ValueError, OSError, AttributeError):
        return 100


def parse_stat(text):
    """CPU ticks (utime + stime) from the text of /proc/<pid>/stat."""
    tail = text[text.rindex(")") + 1:].split()
    return int(tail[_UTIME_AFTER_COMM]) + int(tail[_STIME_AFTER_COMM])


def parse_status(text):
    """{'VmHWM': kB, 'VmRSS': kB, 'Cpus_allowed_list': '0-1'} (those present) from /proc/<pid>/status."""
    found = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS"):
            found[key] = int(value.split()[0])
        elif key == "Cpus_allowed_list":
            found[key] = value.strip()
    return found


def count_cpus(cpu_list):
    """How many CPUs a list such as '0-3,6' names."""
    total = 0
    for part in filter(None, cpu_list.split(",")):
        low, _, high = part.partition("-")
        total += int(high or low) - int(low) + 1
    return total


def sample(pid_files, proc_root="/proc"):
    """{pid_file: {'name', 'pid', 'ticks', 'hwm_kb'} or {'name', 'error'}} for each pid file."""
    result = {}
    for pid_file in pid_files:
        name = os.path.basename(pid_file)
        if name.endswith(".pid"):
            name = name[:-4]
        pid = read_pid(pid_file)
        if pid is None:
            result[pid_file] = {"name": name, "error": "no pid in %s" % pid_file}
            continue
        try:
            with open(os.path.join(proc_root, str(pid), "stat"), encoding="utf-8") as handle:
                ticks = parse_stat(handle.read())
            with open(os.path.join(proc_root, str(pid), "status"), encoding="utf-8") as handle:
                memory = parse_status(handle.read())
        except (OSError, ValueError, IndexError) as exc:
            result[pid_file] = {"name": name, "pid": pid, "error": "process %d cannot be read: %s" % (pid, exc)}
            continue
        result[pid_file] = {"name": name, "pid": pid, "ticks": ticks,
                            "hwm_kb": memory.get("VmHWM", memory.get("VmRSS", 0)),
                            "cpus": count_cpus(memory.get("Cpus_allowed_list", ""))}
    return result


def cost(start, end, ticks_per_second=None):
    """The scheduler_cost entry of summary.json from two samples of the same pid files.

    CPU seconds are what each process used between the samples; peak RSS is the
    largest resident size each reached (VmHWM), summed over the processes. A
    process that was replaced between the samples counts from its own start.
    """
    ticks_per_second = ticks_per_second or clock_ticks()
    processes = []
    total_cpu = 0.0
    total_peak_kb = 0
    for pid_file, last in end.items():
        first = start.get(pid_file, {})
        entry = {"name": last.get("name"), "pid": last.get("pid")}
        if "error" in last:
            entry["error"] = last["error"]
            processes.append(entry)
            continue
        base = first.get("ticks", 0) if first.get("pid") == last["pid"] else 0
        cpu = max(last["ticks"] - base, 0) / float(ticks_per_second)
        entry["cpu_seconds"] = round(cpu, 3)
        entry["peak_rss_mb"] = round(last["hwm_kb"] / 1024.0, 1)
        if last.get("cpus"):
            entry["cpus_allowed"] = last["cpus"]
        total_cpu += cpu
        total_peak_kb += last["hwm_kb"]
        processes.append(entry)
    return {
        "cpu_seconds": round(total_cpu, 3),
        "peak_rss_mb": round(total_peak_kb / 1024.0, 1),
        "processes": processes,
    }


def own_peak_kb():
    """The peak resident memory in kB of the largest of this process and its reaped children (the load generator's
    processes), so far; ru_maxrss is in kilobytes on Linux."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return max(own.ru_maxrss, children.ru_maxrss)


def own_cost():
    """This process's CPU seconds (user + system, all threads) with its reaped children's (the load generator's
    processes), and the peak resident memory of the largest of them, so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"cpu_seconds": round(own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime, 3),
            "peak_rss_mb": round(own_peak_kb() / 1024.0, 1)}
