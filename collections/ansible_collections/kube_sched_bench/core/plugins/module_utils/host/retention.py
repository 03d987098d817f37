# -*- coding: utf-8 -*-
"""What a host's workspace keeps of its runs' results (bench_keep_runs).

After the controller has verified its copy of a result directory, the host records it there in MARKER (hidden, so
never fetched itself): the name, size and sha256 of every file the controller holds. A run directory under
``<workspace>/results/`` may then be pruned, beyond the newest ``keep`` runs, only when every directory in it that
holds files has a marker matching those files (names and sizes: the checksums were compared when the marker was
written). The compressed audit log that stays on the host (bench_fetch_audit_log false) is not in the marker and
goes with its run. Anything else there (a file no marker lists, a file of another size, a symbolic link, a transfer
archive left by a fetch that failed) keeps the run. ``decide`` is the pure part; ``survey`` reads a directory.
"""
from __future__ import annotations

import hashlib
import json
import os
import stat

MARKER = ".fetched.json"
# The API server's compressed audit log in a result directory (library/bench_results.py writes it).
AUDIT_ARCHIVE = "audit.log.gz"


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_records(directory, names):
    """{name: {size, sha256}} of ``names`` in ``directory``."""
    return {name: {"size": os.path.getsize(os.path.join(directory, name)),
                   "sha256": sha256_of(os.path.join(directory, name))} for name in names}


def differences(expected, held):
    """One phrase per file of ``expected`` ({name: {size, sha256}}) that ``held`` lacks or holds otherwise, and per
    file ``held`` has beyond them; [] when they agree."""
    out = []
    for name in sorted(set(expected) | set(held)):
        if name not in held:
            out.append("%s missing" % name)
        elif name not in expected:
            out.append("%s unexpected" % name)
        elif held[name]["size"] != expected[name]["size"]:
            out.append("%s has %d bytes, not %d" % (name, held[name]["size"], expected[name]["size"]))
        elif expected[name].get("sha256") and held[name].get("sha256") != expected[name]["sha256"]:
            out.append("%s differs (sha256)" % name)
    return out


def marker_record(files, fetched_to, fetched_at):
    """The marker's content: the files the controller holds ({name: {size, sha256}}), where and when."""
    return {"fetched_to": fetched_to, "fetched_at": fetched_at, "files": files}


def unheld(on_disk, marker):
    """Why a result directory is not all on the controller: one phrase per file, [] when it is.

    ``on_disk``: {name: size} of its visible regular files; ``marker``: the parsed marker, or None. The compressed
    audit log that the marker does not list stays on the host only, and is pruned with its run.
    """
    if marker is None:
        return ["no record of a complete fetch"] if on_disk else []
    listed = {name: entry.get("size") for name, entry in (marker.get("files") or {}).items()}
    out = []
    for name, size in sorted(on_disk.items()):
        if name not in listed:
            if name != AUDIT_ARCHIVE:
                out.append("%s not fetched" % name)
        elif listed[name] != size:
            out.append("%s changed since its fetch" % name)
    out.extend("%s gone since its fetch" % name for name in sorted(set(listed) - set(on_disk)))
    return out


def decide(runs, keep):
    """Which runs to prune: (pruned, kept), each a list of (name, why).

    ``runs``: {name, time, dirs: [(relative path, {name: size}, marker or None)], strange: [relative paths]}. The
    newest ``keep`` runs (by time, then name) stay; an older one goes only when none of its directories has a file
    the controller does not hold and nothing strange is in it.
    """
    ordered = sorted(runs, key=lambda run: (run["time"], run["name"]), reverse=True)
    pruned, kept = [], []
    for index, run in enumerate(ordered):
        if index < keep:
            kept.append((run["name"], "one of the newest %d" % keep))
            continue
        reasons = ["%s: %s" % (path or ".", ", ".join(why)) for path, files, marker in run["dirs"]
                   for why in [unheld(files, marker)] if why]
        reasons += ["%s: not a regular file or directory" % path for path in run["strange"]]
        if reasons:
            kept.append((run["name"], "; ".join(reasons)))
        else:
            pruned.append((run["name"], "held by the controller"))
    return pruned, kept


def _read_marker(path):
    try:
        with open(path, encoding="utf-8") as handle:
            marker = json.load(handle)
    except (OSError, ValueError):
        return None
    return marker if isinstance(marker, dict) else None


def survey_run(run_dir):
    """One run directory as ``decide`` takes it, with its size in bytes (``bytes``, everything in it)."""
    dirs, strange, total, times = [], [], 0, []
    for root, subdirs, names in os.walk(run_dir):
        relative = os.path.relpath(root, run_dir)
        relative = "" if relative == "." else relative
        files, marker = {}, None
        for name in sorted(names) + [name for name in subdirs if os.path.islink(os.path.join(root, name))]:
            info = os.lstat(os.path.join(root, name))
            if not stat.S_ISREG(info.st_mode):
                strange.append(os.path.join(relative, name))
                continue
            total += info.st_size
            if name == MARKER:
                marker = _read_marker(os.path.join(root, name))
            elif not name.startswith("."):
                files[name] = info.st_size
                times.append(info.st_mtime)
        dirs.append((relative, files, marker))
    time = min(times) if times else os.lstat(run_dir).st_mtime
    return {"name": os.path.basename(run_dir), "time": time, "dirs": dirs, "strange": strange, "bytes": total}


def survey(results_dir, spared=()):
    """Every run directory of ``results_dir`` (visible, real directories), minus those in ``spared`` (names)."""
    try:
        entries = sorted(os.listdir(results_dir))
    except FileNotFoundError:
        return []
    return [survey_run(os.path.join(results_dir, name)) for name in entries
            if not name.startswith(".") and name not in spared
            and stat.S_ISDIR(os.lstat(os.path.join(results_dir, name)).st_mode)]
