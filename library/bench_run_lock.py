#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Create, read or remove the run lock of a host (one JSON file in the workspace)."""
from __future__ import annotations

DOCUMENTATION = r"""
module: bench_run_lock
short_description: The per-host lock a benchmark run holds for its whole life
description:
  - O(state=acquired) creates O(path) atomically with O(holder) in it. When the file exists and names
    another run, nothing changes and RV(acquired) is false, with the holder in RV(holder); with
    O(takeover) set to that run's id (a run the caller found dead), the file is replaced.
  - O(state=released) removes O(path) when it names O(holder)'s run (or any run, with O(force)).
  - The action plugin of the same name fills O(holder) (run id, controller, its pid, start time) and
    decides whether a holder is dead. Given C(workspace) (and C(guard_timeout), C(guard_commands)), once the
    lock is held it also starts the host's guard (module_utils/host/guard.py) and returns C(guard)
    (its pid) or a warning saying why there is none; see docs/troubleshooting.md, "An interrupted run".
options:
  path: {description: The lock file., type: path, required: true}
  state: {description: What to do., type: str, choices: [acquired, released], default: acquired}
  holder: {description: "run_id, controller, pid, started and user of this run.", type: dict, required: true}
  takeover: {description: Run id of a dead holder whose lock may be replaced., type: str, default: ""}
  force: {description: With O(state=released), remove the lock whoever holds it., type: bool, default: false}
  clusters_dir:
    description: With O(state=acquired), the directory of the workspace's clusters, listed in RV(leftovers).
    type: path
author: [kube-sched-bench]
"""

EXAMPLES = r"""
- name: Hold the run lock of the host
  bench_run_lock:
    path: /home/bench/kube-sched-bench/run.lock
    holder: {run_id: 20261130T120000Z, controller: ctl-01, pid: 4242, started: "2026-11-30T12:00:00Z"}
"""

RETURN = r"""
acquired: {description: Whether this run holds the lock now., returned: always, type: bool}
holder: {description: Who holds the lock (after the call), or whom it named before a release., returned: always, type: dict}
taken_over: {description: The dead holder that was replaced., returned: when one was, type: dict}
leftovers:
  description: >-
    The clusters in O(clusters_dir) when the lock was taken, which an earlier run left (this run has started
    none yet): only those need a clean-up before a fresh cluster of the same name starts.
  returned: with O(clusters_dir) when the lock is acquired
  type: list
  elements: str
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.guard import read_holder


def write_new(path, holder):
    """True when this call created the file (O_EXCL), False when it existed."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(holder, handle)
        handle.write("\n")
    return True


def replace(path, holder):
    write_atomically(path, json.dumps(holder) + "\n")


def acquire(path, holder, takeover):
    os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
    if write_new(path, holder):
        return dict(changed=True, acquired=True, holder=holder)
    current = read_holder(path)
    if current.get("run_id") == holder["run_id"]:
        return dict(changed=False, acquired=True, holder=current)
    if takeover and current.get("run_id") == takeover:
        replace(path, holder)
        mine = read_holder(path).get("run_id") == holder["run_id"]
        return dict(changed=True, acquired=mine, holder=read_holder(path), taken_over=current)
    if not current:   # released between the two calls
        return acquire(path, holder, takeover)
    return dict(changed=False, acquired=False, holder=current)


def leftovers(clusters_dir):
    """The names of the directories in ``clusters_dir``, sorted; [] when there is none."""
    try:
        return sorted(entry.name for entry in os.scandir(clusters_dir) if entry.is_dir())
    except FileNotFoundError:
        return []


def release(path, holder, force):
    current = read_holder(path)
    if current and (force or current.get("run_id") == holder.get("run_id")):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        return dict(changed=True, acquired=False, holder=current)
    return dict(changed=False, acquired=False, holder=current)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            state=dict(type="str", default="acquired", choices=["acquired", "released"]),
            holder=dict(type="dict", required=True),
            takeover=dict(type="str", default=""),
            force=dict(type="bool", default=False),
            clusters_dir=dict(type="path"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if not params["holder"].get("run_id"):
        module.fail_json(msg="holder needs a run_id")
    if module.check_mode:
        module.exit_json(changed=False, acquired=False, holder=read_holder(params["path"]))
    if params["state"] == "acquired":
        result = acquire(params["path"], params["holder"], params["takeover"])
        if result["acquired"] and params["clusters_dir"]:
            result["leftovers"] = leftovers(params["clusters_dir"])
        module.exit_json(**result)
    module.exit_json(**release(params["path"], params["holder"], params["force"]))


if __name__ == "__main__":
    main()
