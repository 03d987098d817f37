#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: pack a load test's results on the host, or unpack them on the controller."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_results
short_description: Pack a load test's results into one file on the host, or put them in place on the controller
description:
  - O(state=packed), on the host: the API server's audit log (with its rotated backups, oldest first) is
    compressed into one gzip stream, C(audit.log.gz), beside the results in O(output_dir); then every result
    file (the audit log only with O(include_audit_log)) goes into one uncompressed tar, O(archive), so that
    the controller fetches one file whatever the number of results.
  - O(state=unpacked), on the controller: O(archive) is unpacked into C(<dest>.partial), O(environment) is
    written there as C(env.json), and the directory is renamed to O(dest) once all is there. An existing
    O(dest) is never overwritten.
  - Both do nothing, and say so, when there is nothing (no results directory on the host, no archive).
version_added: "0.1.0"
options:
  state:
    description: C(packed) on the host, C(unpacked) on the controller.
    type: str
    choices: [packed, unpacked]
    required: true
  output_dir:
    description: With O(state=packed), the load test's results directory on the host.
    type: path
  audit_log:
    description: With O(state=packed), the API server's audit log; its rotated backups lie beside it.
    type: path
  include_audit_log:
    description: With O(state=packed), put the compressed audit log into the archive too.
    type: bool
    default: false
  archive:
    description: The tar file, written (packed) or read (unpacked).
    type: path
    required: true
  dest:
    description: With O(state=unpacked), where the results go.
    type: path
  environment:
    description: With O(state=unpacked), the run's environment, written as C(env.json).
    type: dict
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Pack the results on the host
  bench_results:
    state: packed
    output_dir: /home/me/ws/results/run-1/default
    audit_log: /home/me/ws/clusters/bench/audit/audit.log
    archive: /home/me/ws/results/run-1/default.tar

- name: Put them in place on the controller
  bench_results:
    state: unpacked
    archive: results/run-1/localhost/default.tar
    dest: results/run-1/localhost/default
    environment: {scheduler: default}
  delegate_to: localhost
"""

RETURN = r"""
exists:
  description: Whether there was anything to pack or unpack.
  returned: always
  type: bool
files:
  description: Name and size in bytes of each file in the archive.
  returned: when O(exists)
  type: dict
audit_log_archive:
  description: Where the compressed audit log is on the host (packed).
  returned: with O(state=packed) when there is an audit log
  type: str
"""

import gzip
import json
import os
import shutil
import tarfile

from ansible.module_utils.basic import AnsibleModule

AUDIT_ARCHIVE = "audit.log.gz"


def audit_files(audit_log):
    """The audit log and its rotated backups (<stem>-<time><ext>), oldest first, the current one last."""
    directory, name = os.path.split(audit_log)
    stem, ext = os.path.splitext(name)
    try:
        entries = os.listdir(directory)
    except OSError:
        return []
    backups = sorted(entry for entry in entries if entry.startswith(stem + "-") and entry.endswith(ext))
    return [os.path.join(directory, entry) for entry in backups] + ([audit_log] if name in entries else [])


def compress(sources, target):
    """One gzip stream of ``sources`` in order (the lines of every file, as one log)."""
    tmp = target + ".tmp"
    # Level 1: the seed run's 42 MB of JSON lines still become 3.3 MB (1.9 at level 6), in a third of the time.
    with gzip.open(tmp, "wb", compresslevel=1) as out:
        for source in sources:
            with open(source, "rb") as handle:
                shutil.copyfileobj(handle, out, 1 << 20)
    os.replace(tmp, target)


def result_files(output_dir, include_audit_log):
    """The names of the files to bring back: every regular file but hidden ones and, unless asked, the audit log."""
    return sorted(entry for entry in os.listdir(output_dir)
                  if os.path.isfile(os.path.join(output_dir, entry)) and not entry.startswith(".")
                  and (include_audit_log or entry != AUDIT_ARCHIVE))


def pack(module, params):
    output_dir = params["output_dir"]
    if not output_dir or not os.path.isdir(output_dir):
        module.exit_json(changed=False, exists=False)
    result = {}
    sources = audit_files(params["audit_log"]) if params["audit_log"] else []
    if sources:
        result["audit_log_archive"] = os.path.join(output_dir, AUDIT_ARCHIVE)
        if not module.check_mode:
            compress(sources, result["audit_log_archive"])
    names = result_files(output_dir, params["include_audit_log"])
    if not module.check_mode:
        tmp = params["archive"] + ".tmp"
        with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
            for name in names:
                tar.add(os.path.join(output_dir, name), arcname=name, recursive=False)
        os.replace(tmp, params["archive"])
    files = {name: os.path.getsize(os.path.join(output_dir, name)) for name in names}
    module.exit_json(changed=True, exists=True, files=files, **result)


def unpack(module, params):
    archive, dest = params["archive"], params["dest"]
    if not os.path.isfile(archive):
        module.exit_json(changed=False, exists=False)
    if os.path.exists(dest):
        module.fail_json(msg="%s exists already: results are never overwritten" % dest)
    partial = dest + ".partial"
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        unsafe = [m.name for m in members if not m.isfile() or os.path.basename(m.name) != m.name]
        if unsafe:
            module.fail_json(msg="%s holds more than result files: %s" % (archive, ", ".join(unsafe)))
        files = {member.name: member.size for member in members}
        if not module.check_mode:
            os.makedirs(partial, mode=0o755, exist_ok=True)
            if hasattr(tarfile, "data_filter"):
                tar.extractall(partial, members=members, filter="data")
            else:  # Python before 3.11.4: the names were checked above
                tar.extractall(partial, members=members)  # noqa: S202
    if not module.check_mode:
        with open(os.path.join(partial, "env.json"), "w", encoding="utf-8") as handle:
            handle.write(json.dumps(params["environment"] or {}, indent=4, sort_keys=True) + "\n")
        os.rename(partial, dest)
        os.unlink(archive)
    module.exit_json(changed=True, exists=True, files=files)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", required=True, choices=["packed", "unpacked"]),
            output_dir=dict(type="path"),
            audit_log=dict(type="path"),
            include_audit_log=dict(type="bool", default=False),
            archive=dict(type="path", required=True),
            dest=dict(type="path"),
            environment=dict(type="dict"),
        ),
        required_if=[("state", "unpacked", ("dest",))],
        supports_check_mode=True,
    )
    if module.params["state"] == "packed":
        pack(module, module.params)
    unpack(module, module.params)


if __name__ == "__main__":
    main()
