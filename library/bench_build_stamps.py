#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: which builds are finished, and what their binaries report as their version."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_build_stamps
short_description: Tell which builds are finished and what version each of their binaries reports
description:
  - A finished build leaves a stamp, a JSON file (C(.complete)) beside its binaries. This module reads the
    stamps of several builds in one call, so that a warm run checks all its builds at once.
  - The first line of each binary's C(--version) is read once, after the build, and kept in the stamp
    (key C(versions)); later calls read it from there instead of starting every binary again.
  - A binary that is missing or does not answer is reported as C(not built).
version_added: "0.1.0"
options:
  builds:
    description:
      - The builds by name, each a dict with C(stamp) (the stamp's path) and C(binaries) (component name to the
        path of its binary).
    type: dict
    required: true
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Look for finished builds of these versions
  bench_build_stamps:
    builds:
      kubernetes:
        stamp: /home/me/.cache/kube-sched-bench/bin/kubernetes-v1.32.2/.complete
        binaries: {kube-apiserver: /home/me/.cache/kube-sched-bench/bin/kubernetes-v1.32.2/kube-apiserver}
  register: stamps
"""

RETURN = r"""
builds:
  description: Per build, C(complete) (its stamp exists), C(stamp) (the stamp's content) and C(versions)
    (component to the first line of its C(--version), or C(not built)).
  returned: always
  type: dict
"""

import json
import os
import subprocess

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically

NOT_BUILT = "not built"


def read_stamp(path):
    """The stamp's content, or None when there is none (or it does not parse: a build cut short)."""
    try:
        with open(path, encoding="utf-8") as handle:
            content = json.load(handle)
    except (OSError, ValueError):
        return None
    return content if isinstance(content, dict) else None


def first_line(text):
    return text.strip().splitlines()[0].strip() if text.strip() else ""


def ask_version(binary):
    """The first line a binary prints for --version, or NOT_BUILT."""
    try:
        result = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60,  # noqa: S603
                                check=False)
    except (OSError, subprocess.TimeoutExpired):
        return NOT_BUILT
    return first_line(result.stdout) or NOT_BUILT


def versions_of(stamp, binaries, ask=ask_version):
    """(versions, asked): the versions kept in the stamp where it has them all, else each binary asked."""
    kept = stamp.get("versions") if stamp else None
    if isinstance(kept, dict) and set(binaries) <= set(kept) and NOT_BUILT not in kept.values():
        return {name: kept[name] for name in binaries}, False
    return {name: ask(path) for name, path in binaries.items()}, True


def write_stamp(path, content):
    write_atomically(path, json.dumps(content, indent=4, sort_keys=True))


def main():
    module = AnsibleModule(argument_spec=dict(builds=dict(type="dict", required=True)), supports_check_mode=True)
    found, changed = {}, False
    for name, build in module.params["builds"].items():
        if not isinstance(build, dict) or not build.get("stamp") or not isinstance(build.get("binaries"), dict):
            module.fail_json(msg="builds.%s must be a dict with stamp (a path) and binaries (a dict of paths)" % name)
        stamp = read_stamp(build["stamp"])
        if stamp is None:
            versions = {component: ask_version(path) if os.path.exists(path) else NOT_BUILT
                        for component, path in build["binaries"].items()}
            found[name] = {"complete": False, "stamp": {}, "versions": versions}
            continue
        versions, asked = versions_of(stamp, build["binaries"])
        if asked and NOT_BUILT not in versions.values() and not module.check_mode:
            stamp = dict(stamp, versions=versions)
            write_stamp(build["stamp"], stamp)
            changed = True
        found[name] = {"complete": True, "stamp": stamp, "versions": versions}
    module.exit_json(changed=changed, builds=found)


if __name__ == "__main__":
    main()
