# -*- coding: utf-8 -*-
"""Several directories and small files written in one module call (bench_files, and bench_process before it
starts a component): each file is written, atomically, only where its content or mode differs."""
from __future__ import annotations

import os
import shutil
import stat

from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically


def parse_mode(value, name):
    """An octal mode from a string ("0600") or an int as YAML gives it (0o600 or 600)."""
    text = str(value)
    if not text.isdigit() or any(digit in "89" for digit in text):
        raise ValueError("%s=%r is not allowed: use an octal mode such as '0600'" % (name, value))
    return int(text, 8)


def parse_files(entries):
    """(path, content bytes, mode) of each entry, a dict of path, content (text) and mode (default 0600)."""
    files = []
    for index, entry in enumerate(entries):
        if not entry.get("path") or not isinstance(entry.get("content"), str):
            raise ValueError("files[%d] needs a path and a content (text); got %s" % (index, sorted(entry)))
        files.append((os.path.expanduser(entry["path"]), entry["content"].encode("utf-8"),
                      parse_mode(entry.get("mode", "0600"), "files[%d].mode" % index)))
    return files


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


def plan(directories, clean_directories, files):
    """What a write changes: (directories emptied, directories created, files written)."""
    cleaned = [path for path in clean_directories if not is_empty_dir(path)]
    created = [path for path in directories + clean_directories if path in cleaned or not os.path.isdir(path)]
    written = [path for path, content, mode in files if needs_write(path, content, mode)]
    return cleaned, created, written


def apply(cleaned, created, written, files, directory_mode):
    """Carry out a plan(): empty, then create the directories, then write the files that differ."""
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


def write(directories, clean_directories, entries, directory_mode, check_mode=False):
    """Check the input (ValueError, before anything changes), then carry out the plan unless ``check_mode``:
    (directories emptied, directories created, files written)."""
    mode = parse_mode(directory_mode, "directory_mode")
    files = parse_files(entries)
    cleaned, created, written = plan(directories, clean_directories, files)
    if not check_mode:
        apply(cleaned, created, written, files, mode)
    return cleaned, created, written
