# -*- coding: utf-8 -*-
"""Reads what the Python probe (roles/bench/templates/python-probe.sh.j2) found on a host.

The probe runs each candidate interpreter and prints one line per candidate,
``python<TAB><how><TAB><path><TAB><version>`` (version ``-`` when it did not run);
``python_probe`` picks the first whose version is at least the minimum, in the
probe's order (configured, path, scl, bootstrap), and says in words what else it found.
"""
from __future__ import annotations

import re

_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?")


def _version_tuple(text):
    match = _VERSION.match(str(text))
    return tuple(int(part or 0) for part in match.groups()) if match else None


def python_probe(stdout, minimum="3.9"):
    """{chosen, candidates, too_old, found} from the probe's output.

    chosen: the first usable candidate ({how, path, version}) or {}; candidates: every
    interpreter that exists, in order; too_old: those that run but are older than minimum;
    found: "<path> <version>, ..." ("no Python" when none exists) for one-line messages.
    """
    want = _version_tuple(minimum)
    candidates, seen = [], set()
    for line in str(stdout).splitlines():
        fields = line.rstrip("\r").split("\t")
        if len(fields) != 4 or fields[0] != "python" or fields[2] in seen:
            continue
        seen.add(fields[2])
        candidates.append({"how": fields[1], "path": fields[2], "version": fields[3]})
    usable = [item for item in candidates
              if _version_tuple(item["version"]) is not None and _version_tuple(item["version"]) >= want]
    too_old = [item for item in candidates
               if _version_tuple(item["version"]) is not None and _version_tuple(item["version"]) < want]
    found = ", ".join("%s %s" % (item["path"], item["version"] if item["version"] != "-" else "(does not run)")
                      for item in candidates) or "no Python"
    return {"chosen": usable[0] if usable else {}, "candidates": candidates, "too_old": too_old, "found": found}


class FilterModule:
    def filters(self):
        return {"python_probe": python_probe}
