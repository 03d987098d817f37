#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: pack a load test's results on the host, or unpack them on the controller."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_results
short_description: Pack a load test's results into one file on the host, or put them in place on the controller
description:
  - >-
    O(state=packed), on the host: the API server's audit log (with its rotated backups, oldest first) is
    compressed into one gzip stream, C(audit.log.gz), beside the results in O(output_dir); then every result
    file (the audit log only with O(include_audit_log)) goes into one uncompressed tar, O(archive), so that
    the controller fetches one file whatever the number of results.
  - >-
    O(state=unpacked), on the controller: O(archive) is unpacked into C(<dest>.partial), O(environment) is
    written there as C(env.json), and the directory is renamed to O(dest) once all is there. An existing
    O(dest) is never overwritten. C(env.json)'s C(audit_log) says whether the compressed audit log came too
    (C(fetched)) and where it is on the host (C(on_host), O(audit_log_on_host)).
  - >-
    O(state=packed) with O(dest), on a host that is the controller: the result files are copied to O(dest)
    the same way (C(<dest>.partial), C(env.json), renamed), instead of into O(archive): one call, no archive.
  - >-
    Both do nothing, and say so, when there is nothing (no results directory on the host, no archive).
  - >-
    O(state=unpacked) with O(expected) checks the files unpacked against their checksums on the host (the packing's
    RV(checksums)) before the rename, and fails, leaving C(<dest>.partial), when one differs or is missing.
  - >-
    O(state=fetched), on the host once the controller holds the results: checks that O(held) (the unpacking's RV(held))
    names every result file in O(output_dir) with its size, then writes them to C(.fetched.json) there (hidden, so
    never fetched) and removes the transfer archive O(archive); M(bench_prune_results) removes a run only when every
    one of its result directories has this record. O(state=packed) with O(dest) verifies its copies and writes the
    record in the same call.
version_added: "0.1.0"
options:
  state:
    description: C(packed) on the host, C(unpacked) on the controller, C(fetched) on the host afterwards.
    type: str
    choices: [packed, unpacked, fetched]
    required: true
  output_dir:
    description: With O(state=packed) or O(state=fetched), the load test's results directory on the host.
    type: path
  audit_log:
    description: With O(state=packed), the API server's audit log; its rotated backups lie beside it.
    type: path
  include_audit_log:
    description: With O(state=packed), put the compressed audit log into the archive too.
    type: bool
    default: false
  archive:
    description: >-
      The tar file, written (packed) or read (unpacked). Required but with O(state=packed) and O(dest). With
      O(state=fetched), the host's transfer archive, removed once the record is written.
    type: path
  dest:
    description: Where the results go on the controller (unpacked, or packed on the controller itself).
    type: path
  environment:
    description: With O(dest), the run's environment, written as C(env.json) (with C(audit_log) added).
    type: dict
  audit_log_on_host:
    description: With O(state=unpacked), where the compressed audit log is on the host (the packing's RV(audit_log_archive)).
    type: str
    default: ""
  expected:
    description: With O(state=unpacked), the sha256 of each file as packed on the host (the packing's RV(checksums)).
    type: dict
  held:
    description: >-
      With O(state=fetched), the files the controller holds, C({name: {size, sha256}}) (the unpacking's RV(held)).
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

- name: Put them in place on the controller at once, when the host is the controller
  bench_results:
    state: packed
    output_dir: /home/me/ws/results/run-1/default
    audit_log: /home/me/ws/clusters/bench/audit/audit.log
    dest: results/run-1/localhost/default
    environment: {scheduler: default}

- name: Put them in place on the controller
  bench_results:
    state: unpacked
    archive: results/run-1/localhost/default.tar
    dest: results/run-1/localhost/default
    environment: {scheduler: default}
    audit_log_on_host: /home/me/ws/results/run-1/default/audit.log.gz
    expected: {summary.json: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08}
  delegate_to: localhost
  register: unpacked

- name: Record on the host what the controller holds
  bench_results:
    state: fetched
    output_dir: /home/me/ws/results/run-1/default
    held: "{{ unpacked.held }}"
    dest: results/run-1/localhost/default
    archive: /home/me/ws/results/run-1/default.tar
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
checksums:
  description: The sha256 of each file in the archive, as packed on the host.
  returned: with O(state=packed) when O(exists)
  type: dict
held:
  description: "What the controller holds: C({name: {size, sha256}}) of each result file, read back from O(dest)."
  returned: with O(state=unpacked) or O(state=packed) and O(dest), when O(exists) and not in check mode
  type: dict
audit_log_error:
  description: Why the audit log could not be compressed (a full disk); the other results are packed without it.
  returned: with O(state=packed) when compressing the audit log failed
  type: str
"""

import gzip
import json
import os
import shutil
import tarfile
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host import retention
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically

AUDIT_ARCHIVE = retention.AUDIT_ARCHIVE


class NotHeld(Exception):
    """The controller's copy of a result directory differs from the host's."""


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


def remove_quietly(path):
    try:
        os.unlink(path)
    except OSError:
        pass


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
    if params["dest"]:
        refuse_existing(module, params["dest"])
    result = {}
    sources = audit_files(params["audit_log"]) if params["audit_log"] else []
    if sources and not module.check_mode:
        try:
            compress(sources, os.path.join(output_dir, AUDIT_ARCHIVE))
        except OSError as error:
            # A full disk: the results measured so far still come back, without the log (which stays uncompressed).
            remove_quietly(os.path.join(output_dir, AUDIT_ARCHIVE + ".tmp"))
            result["audit_log_error"] = "the audit log was not compressed: %s" % error
    if sources and "audit_log_error" not in result:
        result["audit_log_archive"] = os.path.join(output_dir, AUDIT_ARCHIVE)
    names = result_files(output_dir, params["include_audit_log"])
    packed = retention.file_records(output_dir, names)
    result["checksums"] = {name: record["sha256"] for name, record in packed.items()}
    if params["dest"]:
        if not module.check_mode:
            def copy_results(partial):
                for name in names:
                    shutil.copy2(os.path.join(output_dir, name), os.path.join(partial, name))
                result["held"] = verified(partial, packed)
            try:
                put_in_place(params["dest"], params["environment"], copy_results,
                             audit_log_record(names, result.get("audit_log_archive", "")))
            except NotHeld as problem:
                module.fail_json(msg="%s: %s" % (params["dest"], problem))
            write_marker(output_dir, result["held"], params["dest"])
    elif not module.check_mode:
        tmp = params["archive"] + ".tmp"
        with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
            for name in names:
                tar.add(os.path.join(output_dir, name), arcname=name, recursive=False)
        os.replace(tmp, params["archive"])
    files = {name: os.path.getsize(os.path.join(output_dir, name)) for name in names}
    module.exit_json(changed=True, exists=True, files=files, **result)


def verified(directory, expected):
    """The records ({name: {size, sha256}}) of the files ``expected`` names, read from ``directory``; NotHeld when
    one is missing or differs."""
    held = retention.file_records(directory, [name for name in sorted(expected)
                                              if os.path.isfile(os.path.join(directory, name))])
    problems = retention.differences(expected, held)
    if problems:
        raise NotHeld("the copy differs from the host's results: " + ", ".join(problems))
    return held


def write_marker(output_dir, held, dest):
    """Record in ``output_dir`` (on the host) the result files the controller holds in ``dest``."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_atomically(os.path.join(output_dir, retention.MARKER),
                     json.dumps(retention.marker_record(held, dest, stamp), indent=2, sort_keys=True) + "\n")


def fetched(module, params):
    """Write the record of what the controller holds, when it names the host's result files with their sizes."""
    output_dir, held = params["output_dir"], params["held"] or {}
    if not output_dir or not os.path.isdir(output_dir):
        module.fail_json(msg="output_dir=%s is not a directory" % output_dir)
    names = result_files(output_dir, AUDIT_ARCHIVE in held)
    on_disk = {name: {"size": os.path.getsize(os.path.join(output_dir, name))} for name in names}
    problems = retention.differences(on_disk, {name: {"size": entry.get("size")} for name, entry in held.items()})
    if problems:
        module.fail_json(msg="%s: the controller's copy%s is not all of the results: %s" % (
            output_dir, " (%s)" % params["dest"] if params["dest"] else "", ", ".join(problems)))
    archive = params["archive"]
    if not module.check_mode:
        write_marker(output_dir, held, params["dest"] or "")
        if archive and os.path.isfile(archive):
            os.unlink(archive)
    module.exit_json(changed=True, exists=True, files={name: entry["size"] for name, entry in on_disk.items()})


def refuse_existing(module, dest):
    if os.path.exists(dest):
        module.fail_json(msg="%s exists already: results are never overwritten" % dest)


def audit_log_record(names, on_host):
    """env.json's audit_log: whether the compressed audit log is among the results brought back, and where it is on
    the host ('' when the cluster had none)."""
    return {"fetched": AUDIT_ARCHIVE in names, "on_host": on_host or ""}


def put_in_place(dest, environment, fill, audit_log):
    """``fill`` C(<dest>.partial) with the result files, write C(env.json) there (``environment`` with
    ``audit_log``), then rename it to ``dest``."""
    partial = dest + ".partial"
    os.makedirs(partial, mode=0o755, exist_ok=True)
    fill(partial)
    with open(os.path.join(partial, "env.json"), "w", encoding="utf-8") as handle:
        handle.write(json.dumps(dict(environment or {}, audit_log=audit_log), indent=4, sort_keys=True) + "\n")
    os.rename(partial, dest)


def unpack(module, params):
    archive, dest = params["archive"], params["dest"]
    if not os.path.isfile(archive):
        module.exit_json(changed=False, exists=False)
    refuse_existing(module, dest)
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        unsafe = [m.name for m in members if not m.isfile() or os.path.basename(m.name) != m.name]
        if unsafe:
            module.fail_json(msg="%s holds more than result files: %s" % (archive, ", ".join(unsafe)))
        files = {member.name: member.size for member in members}
        audit_log = audit_log_record(files, params["audit_log_on_host"])
        # Python before 3.11.4 has no extraction filter: the names were checked above.
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        expected = {name: {"size": size, "sha256": (params["expected"] or {}).get(name, "")}
                    for name, size in files.items()}
        for name in set(params["expected"] or {}) - set(files):
            expected[name] = {"size": -1, "sha256": params["expected"][name]}
        result = {}

        def extract(partial):
            tar.extractall(partial, members=members, **safe)  # noqa: S202
            result["held"] = verified(partial, expected)
        if not module.check_mode:
            try:
                put_in_place(dest, params["environment"], extract, audit_log)
            except NotHeld as problem:
                module.fail_json(msg="%s: %s" % (dest, problem))
            os.unlink(archive)
    module.exit_json(changed=True, exists=True, files=files, **result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", required=True, choices=["packed", "unpacked", "fetched"]),
            output_dir=dict(type="path"),
            audit_log=dict(type="path"),
            include_audit_log=dict(type="bool", default=False),
            archive=dict(type="path"),
            dest=dict(type="path"),
            environment=dict(type="dict"),
            audit_log_on_host=dict(type="str", default=""),
            expected=dict(type="dict"),
            held=dict(type="dict"),
        ),
        required_if=[("state", "unpacked", ("dest", "archive")), ("state", "fetched", ("output_dir", "held"))],
        supports_check_mode=True,
    )
    if module.params["state"] == "fetched":
        fetched(module, module.params)
    if not module.params["archive"] and not module.params["dest"]:
        module.fail_json(msg="state=packed needs archive (or dest, on a host that is the controller)")
    if module.params["state"] == "packed":
        pack(module, module.params)
    unpack(module, module.params)


if __name__ == "__main__":
    main()
