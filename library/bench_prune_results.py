#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: remove the host's copies of older runs' results that the controller holds (bench_keep_runs)."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_prune_results
short_description: Keep the newest runs' results on the host, and older ones only until the controller holds them
description:
  - Every directory of O(path) is one run's results on the host (C(<bench_workspace>/results/<run_id>/)). The newest
    O(keep) runs stay, newest by the oldest modification time of their visible files (when the run's first result
    was written, which a later fetch does not change). An older run is removed only when every directory in it that
    holds files has a C(.fetched.json) (written by M(bench_results) once the controller had verified its copy)
    whose files match those on disk by name and size.
  - The compressed audit log that stays on the host (C(bench_fetch_audit_log) false) is not among the files the
    controller holds, and is removed with its run. A run with anything else the controller does not hold (a file
    not fetched or changed since, a transfer archive left by a fetch that failed, a symbolic link) stays, and
    RV(kept) says why.
  - Nothing at all is removed while O(skip_if_exists) exists (another run's lock), nor when O(path) is, or lies
    inside, one of O(never_in); a run directory that holds one of them stays.
  - Supports check mode (says what it would remove).
version_added: "0.1.0"
options:
  path:
    description: The host's results directory, one directory per run.
    type: path
    required: true
  keep:
    description: How many of the newest runs stay whatever their state; 0 keeps none that the controller holds.
    type: int
    required: true
  never_in:
    description: Directories never pruned, nor anything in them (the controller's results directory, on a host that is the controller).
    type: list
    elements: path
    default: []
  skip_if_exists:
    description: A file whose presence means that another run may be writing in O(path) (the host's run lock); nothing is pruned then.
    type: path
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Keep the newest three runs on the host, and older ones until the controller holds them
  bench_prune_results:
    path: /home/me/kube-sched-bench/results
    keep: 3
    never_in: [/home/me/kube-sched-bench-ctl/results]
"""

RETURN = r"""
pruned:
  description: The runs removed (or, in check mode, that would be).
  returned: always
  type: list
  elements: str
pruned_bytes:
  description: What they held, in bytes.
  returned: always
  type: int
kept:
  description: Each run that stays, and why (one of the newest O(keep), or what the controller does not hold).
  returned: always
  type: dict
msg:
  description: "One line: how many runs were removed and their size, how many stay, and why an older one stays."
  returned: always
  type: str
  sample: "pruned 2 runs (14.2 MB) of /home/me/ws/results, kept 3; older, kept: r1 (default: no record of a complete fetch)"
skipped:
  description: Why nothing was looked at (O(skip_if_exists) exists, or O(path) is in O(never_in)); empty otherwise.
  returned: always
  type: str
"""

import os
import shutil

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import retention


def inside(path, directory):
    """Whether ``path`` is ``directory`` or lies inside it (both resolved)."""
    path, directory = os.path.realpath(path), os.path.realpath(directory)
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)


def skip_reason(params):
    if params["skip_if_exists"] and os.path.lexists(params["skip_if_exists"]):
        return "%s exists: a run may be writing there" % params["skip_if_exists"]
    for protected in params["never_in"]:
        if inside(params["path"], protected):
            return "%s is in %s, which is never pruned" % (params["path"], protected)
    return ""


def spared_runs(path, never_in):
    """The run directories of ``path`` that hold one of ``never_in``."""
    return {os.path.relpath(os.path.realpath(protected), os.path.realpath(path)).split(os.sep)[0]
            for protected in never_in if inside(protected, path) and not inside(path, protected)}


def summary(path, pruned, pruned_bytes, kept, check_mode):
    """The one line the play prints."""
    older = ["%s (%s)" % (name, why) for name, why in kept if not why.startswith("one of the newest")]
    return "%s %d run%s (%.1f MB) of %s, kept %d%s" % (
        "would prune" if check_mode else "pruned", len(pruned), "" if len(pruned) == 1 else "s",
        pruned_bytes / 1048576.0, path, len(kept), "; older, kept: " + "; ".join(older) if older else "")


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            keep=dict(type="int", required=True),
            never_in=dict(type="list", elements="path", default=[]),
            skip_if_exists=dict(type="path"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if params["keep"] < 0:
        module.fail_json(msg="keep=%d is not allowed: use a whole number of runs, 0 or more" % params["keep"])
    skipped = skip_reason(params)
    if skipped:
        module.exit_json(changed=False, pruned=[], pruned_bytes=0, kept={}, skipped=skipped,
                         msg="pruned nothing: " + skipped)
    runs = retention.survey(params["path"], spared_runs(params["path"], params["never_in"]))
    pruned, kept = retention.decide(runs, params["keep"])
    sizes = {run["name"]: run["bytes"] for run in runs}
    if not module.check_mode:
        for name, _why in pruned:
            shutil.rmtree(os.path.join(params["path"], name))
    pruned_bytes = sum(sizes[name] for name, _why in pruned)
    module.exit_json(changed=bool(pruned), pruned=[name for name, _why in pruned], pruned_bytes=pruned_bytes,
                     kept=dict(kept), skipped="",
                     msg=summary(params["path"], pruned, pruned_bytes, kept, module.check_mode))


if __name__ == "__main__":
    main()
