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
  - One call instead of one task per file: a cluster's configuration (kubeconfigs, audit policy, kwok stages,
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

import os
import shutil
import stat

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.bench_atomic import write_atomically


def parse_mode(value, name):
    """An octal mode from a string ("0600") or an int as YAML gives it (0o600 or 600)."""
    text = str(value)
    if not text.isdigit() or any(digit in "89" for digit in text):
        raise ValueError("%s=%r is not allowed: use an octal mode such as '0600'" % (name, value))
    return int(text, 8)


def is_empty_dir(path):
    """True for a directory with nothing in it (a clean directory needs no change)."""
    return os.path.isdir(path) and not os.path.islink(path) and not os.listdir(path)


def needs_write(path, content, mode):
    """True when the file is missing, says something else, or has another mode."""
    try:
        with open(path, "rb") as handle:
            same = handle.read() == content
        return not same or stat.S_IMODE(os.stat(path).st_mode) != mode
    except OSError:
        return True


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
        directory_mode = parse_mode(params["directory_mode"], "directory_mode")
        files = []
        for index, entry in enumerate(params["files"]):
            if not entry.get("path") or not isinstance(entry.get("content"), str):
                raise ValueError("files[%d] needs a path and a content (text); got %s" % (index, sorted(entry)))
            files.append((os.path.expanduser(entry["path"]), entry["content"].encode("utf-8"),
                          parse_mode(entry.get("mode", "0600"), "files[%d].mode" % index)))
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    cleaned = [path for path in params["clean_directories"] if not is_empty_dir(path)]
    created = [path for path in params["directories"] + params["clean_directories"]
               if path in cleaned or not os.path.isdir(path)]
    written = [path for path, content, mode in files if needs_write(path, content, mode)]
    if not module.check_mode:
        for path in cleaned:
            if os.path.lexists(path):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path)
                else:
                    os.unlink(path)
        for path in created:
            os.makedirs(path, mode=directory_mode, exist_ok=True)
            os.chmod(path, directory_mode)
        for path, content, mode in files:
            if path in written:
                os.makedirs(os.path.dirname(path) or ".", mode=directory_mode, exist_ok=True)
                write_atomically(path, content, mode)
    module.exit_json(changed=bool(cleaned or created or written), cleaned=cleaned, created=created, written=written)


if __name__ == "__main__":
    main()
