#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: after a failure, say whether the host ran out of disk or a component was killed for memory."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_exhaustion
short_description: Name a full file system or a component the kernel killed for memory after a run failed
description:
  - Run after a failure and before anything is stopped. Looks for a file system of O(paths) with O(floor_mb) MiB
    or less free (with the component whose log in O(logs_dir) says a write found no space), then for a component
    whose pid file is in O(pid_dir) but whose process is gone, and whether the kernel's OOM killer killed it
    (its log, C(/dev/kmsg), from O(since) on).
  - Returns the one line that names it (C(line), empty when the host was not short of either) and the finding as
    a record for C(failed.json). Never fails for what it finds, and changes nothing.
version_added: "0.1.0"
options:
  paths:
    description: Where the run writes, each a dict of C(path) and C(what).
    type: list
    elements: dict
    default: []
  floor_mb:
    description: A file system with this many MiB free or fewer is full (a write of the run failed there).
    type: int
    default: 32
  pid_dir:
    description: The directory of the run's pid files (C(<component>.pid)).
    type: path
  logs_dir:
    description: The directory of the components' logs (C(<component>.log)).
    type: path
  since:
    description: The run's start, seconds since the epoch; kernel OOM kills before it are not this run's. 0, all.
    type: float
    default: 0
  message:
    description: The failure's own line, kept beside a full disk's finding when it says so.
    type: str
    default: ""
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Look for a full disk or a component killed for memory
  bench_exhaustion:
    paths: [{path: /home/me/kube-sched-bench, what: workspace}]
    pid_dir: /home/me/kube-sched-bench/clusters/bench/run
    logs_dir: /home/me/kube-sched-bench/clusters/bench/logs
    since: 1796000000
    message: "MaxRetryError: Remote end closed connection without response"
  register: exhausted
"""

RETURN = r"""
line:
  description: The one line naming what ran short, or empty.
  returned: always
  type: str
finding:
  description: C(kind) (disk, memory or died), with C(mount), C(free_mb), C(total_mb) and C(paths) of a full file
    system, or C(component), C(pid), C(memory_mb) and C(available_mb) of a component that died; empty when none.
  returned: always
  type: dict
kernel_log_readable:
  description: Whether the kernel's log could be read (root, or kernel.dmesg_restrict off).
  returned: always
  type: bool
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import disk, exhaustion


def full_file_systems(paths, floor_mb):
    needs = [{"path": entry["path"], "what": entry.get("what", ""), "mb": 0} for entry in paths if entry.get("path")]
    groups = disk.group_by_file_system(needs)
    full = []
    for group in groups:
        group["line"] = disk.full_line(group, floor_mb)
        group.pop("device")
        if group["line"]:
            full.append(group)
    return full


def no_space_lines(logs_dir):
    """{component: line} of the components whose log says a write found the disk full."""
    lines = {}
    try:
        names = sorted(entry for entry in os.listdir(logs_dir) if entry.endswith(".log"))
    except (OSError, TypeError):
        return lines
    for entry in names:
        line = exhaustion.no_space_line(os.path.join(logs_dir, entry))
        if line:
            lines[entry[:-len(".log")]] = line
    return lines


def main():
    module = AnsibleModule(
        argument_spec=dict(paths=dict(type="list", elements="dict", default=[]),
                           floor_mb=dict(type="int", default=32),
                           pid_dir=dict(type="path"),
                           logs_dir=dict(type="path"),
                           since=dict(type="float", default=0),
                           message=dict(type="str", default="")),
        supports_check_mode=True,
    )
    params = module.params
    records = exhaustion.kernel_records()
    finding = exhaustion.disk_finding(full_file_systems(params["paths"], params["floor_mb"]),
                                      no_space_lines(params["logs_dir"]), params["message"])
    if finding is None and params["pid_dir"]:
        since_uptime = exhaustion.uptime_s() - (time.time() - params["since"]) if params["since"] else 0.0
        finding = exhaustion.memory_finding(exhaustion.dead_components(params["pid_dir"]),
                                            exhaustion.oom_kills(records or [], since_uptime),
                                            records is not None, exhaustion.available_memory_mb())
    finding = finding or {}
    module.exit_json(changed=False, line=finding.pop("line", ""), finding=finding,
                     kernel_log_readable=records is not None)


if __name__ == "__main__":
    main()
