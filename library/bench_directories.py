#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: which of several paths are directories on the host."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_directories
short_description: Tell which of several paths are directories on the host
description:
  - Looks at every path in one call (the C(stat) module takes one path a call) and changes nothing.
version_added: "0.1.0"
options:
  paths:
    description: The paths to look at (a relative path is taken from the module's working directory).
    type: list
    elements: path
    required: true
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Look for the module mirrors named in golang_goproxy
  bench_directories:
    paths: [/srv/goproxy, /opt/go-mirror]
  register: mirrors

- name: Fail on a mirror that is no directory
  ansible.builtin.assert:
    that: mirrors.missing | length == 0
"""

RETURN = r"""
directories:
  description: The paths that are directories, in the order given.
  returned: always
  type: list
  elements: str
missing:
  description: The paths that are not (absent, or something else than a directory), in the order given.
  returned: always
  type: list
  elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule


def split_directories(paths, is_directory=os.path.isdir):
    """(directories, missing): ``paths`` split by whether each is a directory, in their order."""
    directories = [path for path in paths if is_directory(path)]
    return directories, [path for path in paths if path not in directories]


def main():
    module = AnsibleModule(argument_spec=dict(paths=dict(type="list", elements="path", required=True)),
                           supports_check_mode=True)
    directories, missing = split_directories(module.params["paths"])
    module.exit_json(changed=False, directories=directories, missing=missing)


if __name__ == "__main__":
    main()
