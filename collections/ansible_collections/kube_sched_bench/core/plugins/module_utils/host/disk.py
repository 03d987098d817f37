# -*- coding: utf-8 -*-
"""Free space where a run writes: the file system each path is on, what the run needs on each, the one line per
shortfall, and the line that names a file system a run has filled (bench_disk_space, bench_exhaustion).

A need is a dict: ``path`` (where it is written; it may not exist yet), ``mb`` (MiB), ``what`` (the words for it),
``knob`` (what moves it elsewhere) and, where the workload sets its size, ``lower`` (the knobs that shrink it).
Standard library only; the file-system probe is passed in, so that the grouping and the wording are tested without
a real file system.
"""
from __future__ import annotations

import os

MIB = 1 << 20


def nearest_existing(path):
    """``path`` itself, or its closest ancestor that exists (where it will be created)."""
    path = os.path.abspath(path)
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return path


def mount_point(path):
    """The mount point of the file system ``path`` is on: the highest ancestor on the same device."""
    path = os.path.realpath(nearest_existing(path))
    device = os.stat(path).st_dev
    while path != os.path.dirname(path) and os.stat(os.path.dirname(path)).st_dev == device:
        path = os.path.dirname(path)
    return path


def file_system_type(mount, mounts_file="/proc/self/mounts"):
    """The type the kernel gives the file system mounted at ``mount`` ('' when it is not listed)."""
    found = ""
    try:
        with open(mounts_file, encoding="utf-8") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) > 2 and fields[1].replace("\\040", " ") == mount:
                    found = fields[2]  # the last mount over a point is the one in use
    except OSError:
        return ""
    return found


def probe(path):
    """What a need's path is on: its device, mount point, type, free and total MiB (for an unprivileged user)."""
    existing = nearest_existing(path)
    stat = os.statvfs(existing)
    mount = mount_point(existing)
    return {"device": os.stat(existing).st_dev, "mount": mount, "fstype": file_system_type(mount),
            "free_mb": stat.f_bavail * stat.f_frsize // MIB, "total_mb": stat.f_blocks * stat.f_frsize // MIB}


def group_by_file_system(needs, probe_path=probe):
    """The needs grouped by the file system they land on, in the order each file system is first named: per file
    system its mount, type, free MiB, the sum needed, and the needs themselves."""
    groups = {}
    for need in needs:
        found = probe_path(need["path"])
        group = groups.setdefault(found["device"], dict(found, need_mb=0, needs=[]))
        group["need_mb"] += int(need["mb"])
        group["needs"].append(need)
    return list(groups.values())


def _unique(values):
    return list(dict.fromkeys(value for value in values if value))


def where(group):
    """``<path>[, <path>] (<fstype> at <mount>)``: the paths of a file system's needs and the file system."""
    paths = ", ".join(_unique(need["path"] for need in group["needs"]))
    kind = group["fstype"] + " " if group["fstype"] else ""
    return "%s (%sat %s)" % (paths, kind, group["mount"])


def shortfall_line(group):
    """The one line for a file system with less free space than its needs, naming every path on it, what each
    needs and the knobs that move them."""
    parts = ", ".join("%s %d" % (need["what"], int(need["mb"])) for need in group["needs"])
    knobs = _unique(need.get("knob") for need in group["needs"])
    lower = _unique(need.get("lower") for need in group["needs"])
    return ("%s has %d MiB free; this run needs %d MiB there (%s): free space there, change %s%s"
            % (where(group), group["free_mb"], group["need_mb"], parts, " or ".join(knobs) or "the paths",
               ", or lower " + "; ".join(lower) if lower else ""))


def shortfalls(groups):
    """One line per file system that cannot hold what the run writes on it."""
    return [shortfall_line(group) for group in groups if group["free_mb"] < group["need_mb"]]


def full_line(group, floor_mb):
    """The line for a file system a run has filled (``floor_mb`` or less free), else ''."""
    if group["free_mb"] > floor_mb:
        return ""
    return "the disk is full: %s has %d MiB free of %d MiB" % (where(group), group["free_mb"], group["total_mb"])
