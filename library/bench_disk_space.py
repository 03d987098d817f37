#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: check that each file system a run writes on has the space the run needs there."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_disk_space
short_description: Check the free space of every file system a run writes on against what it needs there
description:
  - Each need names a path (which may not exist yet, and then its closest existing ancestor is measured), the MiB the run
    writes there, what that is, the knob that moves it and the knobs that shrink it. Needs on the same file system
    add up.
  - Fails with one line per file system that has less free space (for the connecting user) than its needs,
    naming its paths, type and mount point, the free and the needed MiB, and the knobs; with O(enforce=false)
    it only returns the lines.
  - Changes nothing, so it runs the same in check mode.
version_added: "0.1.0"
options:
  needs:
    description: What the run writes, each a dict of C(path), C(mb), C(what), C(knob) and optionally C(lower).
    type: list
    elements: dict
    required: true
  enforce:
    description: Fail on a shortfall (false, only return it).
    type: bool
    default: true
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Check the space of the workspace and the build cache
  bench_disk_space:
    needs:
      - {path: /home/me/kube-sched-bench, mb: 460, what: audit log, knob: bench_workspace}
      - {path: /home/me/.cache/kube-sched-bench, mb: 4096, what: 2 builds, knob: bench_cache_dir}
"""

RETURN = r"""
file_systems:
  description: Each file system the needs land on, with C(mount), C(fstype), C(free_mb), C(total_mb), C(need_mb)
    and its C(needs).
  returned: always
  type: list
  elements: dict
shortfalls:
  description: One line per file system with too little free space.
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.disk import group_by_file_system, shortfalls


def main():
    module = AnsibleModule(
        argument_spec=dict(needs=dict(type="list", elements="dict", required=True),
                           enforce=dict(type="bool", default=True)),
        supports_check_mode=True,
    )
    needs = module.params["needs"]
    wrong = [need for need in needs if not need.get("path") or not str(need.get("mb", "")).isdigit()]
    if wrong:
        module.fail_json(msg="each need takes a path and whole MiB (mb): %s" % wrong)
    groups = group_by_file_system(needs)
    for group in groups:
        group.pop("device")
    lines = shortfalls(groups)
    if lines and module.params["enforce"]:
        module.fail_json(msg="; ".join(lines), file_systems=groups, shortfalls=lines)
    module.exit_json(changed=False, file_systems=groups, shortfalls=lines)


if __name__ == "__main__":
    main()
