#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: several directories and small files in one call."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_files
short_description: Create several directories and write several small files in one call
description:
  - Empties each of O(clean_directories), creates each of O(directories) (and their parents) with
    O(directory_mode) where missing, then writes each
    of O(files) whose content differs from what is there, atomically (a temporary file renamed into place),
    with its mode. A file whose content and mode match is left alone.
  - One call instead of one task per file, for a cluster's configuration (kubeconfigs, audit policy, kwok stages,
    its ports) is a dozen small files, and each task costs the run about half a second.
version_added: "0.1.0"
options:
  directories:
    description: Directories to create where missing.
    type: list
    elements: path
    default: []
  clean_directories:
    description: Directories made empty (removed with what they hold, then created), for a fresh start.
    type: list
    elements: path
    default: []
  directory_mode:
    description: Mode of the directories this call creates (existing ones keep theirs).
    type: raw
    default: "0700"
  files:
    description: The files, each C(path), C(content) (text) and optional C(mode) (default C(0600)).
    type: list
    elements: dict
    default: []
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Write the cluster's configuration
  bench_files:
    directories: [/tmp/c1/run, /tmp/c1/logs]
    files:
      - {path: /tmp/c1/state.json, content: '{"ports": {}}'}
      - {path: /tmp/c1/audit-policy.yaml, content: "{{ policy }}", mode: "0644"}
"""

RETURN = r"""
cleaned:
  description: The directories this call emptied.
  returned: always
  type: list
  elements: str
written:
  description: The files this call wrote (their content or mode changed).
  returned: always
  type: list
  elements: str
created:
  description: The directories this call created.
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.file_set import write


def main():
    module = AnsibleModule(
        argument_spec=dict(
            directories=dict(type="list", elements="path", default=[]),
            clean_directories=dict(type="list", elements="path", default=[]),
            directory_mode=dict(type="raw", default="0700"),
            files=dict(type="list", elements="dict", default=[]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        cleaned, created, written = write(params["directories"], params["clean_directories"], params["files"],
                                          params["directory_mode"], module.check_mode)
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(changed=bool(cleaned or created or written), cleaned=cleaned, created=created, written=written)


if __name__ == "__main__":
    main()
