# -*- coding: utf-8 -*-
"""Why a run failed when a host ran short: a file system it filled, or a component the kernel killed for memory.

Read after a failure (bench_exhaustion), before anything is stopped: the free space of each file system the run
writes on, the components' pid files and logs, and the kernel's log of OOM kills. The parsing and the wording are
pure functions; the readers take paths, so that the tests feed them files.
"""
from __future__ import annotations

import errno
import json
import os
import re

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import guard
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.pid_file import pid_files_in

# What Go and etcd write when a write finds the disk full (ENOSPC), and etcd when its quota is reached.
NO_SPACE = re.compile(r"no space left on device|database space exceeded|ENOSPC", re.IGNORECASE)
# The kernel's line for each process its OOM killer kills (a memory cgroup's limit, or the whole host's memory).
OOM_KILL = re.compile(r"(?P<scope>Memory cgroup out of memory|Out of memory)[^:]*: Killed process (?P<pid>\d+) "
                      r"\((?P<name>[^)]*)\).*?anon-rss:(?P<rss_kb>\d+)kB")
LOG_TAIL_BYTES = 64 << 10


def kernel_records(path="/dev/kmsg"):
    """The kernel log's records as (seconds since boot, text), or None when it cannot be read (an unprivileged user
    where kernel.dmesg_restrict is set, or a container without it)."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    records = []
    try:
        while True:
            try:
                raw = os.read(handle, 8192)
            except OSError as error:
                if error.errno == errno.EPIPE:  # a record overwritten while reading: go on with the next
                    continue
                break  # EAGAIN: the end of the log
            if not raw:
                break
            header, _, text = raw.decode("utf-8", "replace").partition(";")
            fields = header.split(",")
            usec = int(fields[2]) if len(fields) > 2 and fields[2].isdigit() else 0
            records.append((usec / 1e6, text.splitlines()[0] if text else ""))
    finally:
        os.close(handle)
    return records


def oom_kills(records, since_uptime=0.0):
    """The OOM kills the kernel logged at or after ``since_uptime`` (seconds since boot): pid, name, scope
    (``cgroup`` or ``host``) and the anonymous memory the process held, in MiB."""
    kills = []
    for at, text in records:
        match = OOM_KILL.search(text)
        if match and at >= since_uptime:
            kills.append({"pid": int(match.group("pid")), "name": match.group("name"),
                          "scope": "cgroup" if match.group("scope").startswith("Memory cgroup") else "host",
                          "memory_mb": int(match.group("rss_kb")) // 1024})
    return kills


def no_space_line(log_path):
    """The last line of a component's log that says its disk was full, or ''."""
    try:
        with open(log_path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(log_path) - LOG_TAIL_BYTES))
            tail = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line.strip() for line in tail.splitlines() if NO_SPACE.search(line)]
    return readable(lines[-1])[:240] if lines else ""


def readable(line):
    """A log line as a person reads it: a JSON line (etcd's) as its message and error, else the line."""
    if not line.startswith("{"):
        return line
    try:
        record = json.loads(line)
    except ValueError:
        return line
    return ": ".join(str(record[key]) for key in ("msg", "error") if record.get(key)) or line


def dead_components(pid_dir, alive=None):
    """{name: pid} of the components whose pid file is in ``pid_dir`` but whose process is gone."""
    alive = alive or guard.alive
    dead = {}
    for path in pid_files_in([pid_dir]):
        pid = guard.read_pid(path)
        if pid is not None and not alive(pid):
            dead[os.path.basename(path)[:-len(".pid")]] = pid
    return dead


def memory_finding(dead, kills, records_readable, available_mb):
    """The finding for a component that died: killed by the OOM killer (the kernel's line for its pid), or, with no
    kernel log to read, a death nothing here can explain; None when no component died."""
    for name, pid in dead.items():
        kill = next((kill for kill in kills if kill["pid"] == pid), None)
        if kill:
            where = "its memory cgroup's limit" if kill["scope"] == "cgroup" else "the host's memory"
            return {"kind": "memory", "component": name, "pid": pid, "memory_mb": kill["memory_mb"],
                    "available_mb": available_mb, "scope": kill["scope"],
                    "line": "out of memory: the kernel's OOM killer killed %s (pid %d, %d MiB resident) at %s; "
                            "%d MiB of the host's memory is available now"
                            % (name, pid, kill["memory_mb"], where, available_mb)}
    if dead and not records_readable:
        name, pid = next(iter(dead.items()))
        return {"kind": "died", "component": name, "pid": pid, "available_mb": available_mb,
                "line": "%s (pid %d) is gone and the kernel log cannot be read here to say whether the OOM killer "
                        "killed it (see its log); %d MiB of the host's memory is available now"
                        % (name, pid, available_mb)}
    return None


def disk_finding(full, component_lines, message):
    """The finding for a file system the run filled (``full``: those with no room left now, each with its ``line``),
    with the component whose log says its write failed, else the failure's own message where it says so; None
    when no file system is full."""
    if not full:
        return None
    group = full[0]
    finding = {"kind": "disk", "mount": group["mount"], "fstype": group["fstype"], "free_mb": group["free_mb"],
               "total_mb": group["total_mb"], "paths": [need["path"] for need in group["needs"]]}
    said = next(iter(component_lines.items()), None)
    line = group["line"]
    if said:
        finding["component"] = said[0]
        line += "; %s: %s" % said
    elif NO_SPACE.search(message or ""):
        line += "; %s" % message
    finding["line"] = line
    return finding


def available_memory_mb(meminfo="/proc/meminfo"):
    """MemAvailable, in MiB (0 when it cannot be read)."""
    try:
        with open(meminfo, encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def uptime_s(path="/proc/uptime"):
    with open(path, encoding="utf-8") as handle:
        return float(handle.read().split()[0])
