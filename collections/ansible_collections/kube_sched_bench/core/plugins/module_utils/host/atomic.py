# -*- coding: utf-8 -*-
"""One way to write a file that a reader, or a run that is interrupted, sees either whole or not at all."""
from __future__ import annotations

import os
import tempfile


def write_atomically(path, content, mode=0o644, make_dirs=False):
    """Write ``content`` (bytes, or text as UTF-8) to ``path``: a temporary file beside it, created readable by its
    owner only, gets ``mode`` and is renamed over ``path``. Nothing is left behind when the write fails."""
    directory = os.path.dirname(path) or "."
    if make_dirs:
        os.makedirs(directory, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def differs(path, content):
    """Whether ``path`` does not hold ``content`` (bytes) already, or cannot be read: a writer that rewrites only
    what changed reports no change on a second run."""
    try:
        with open(path, "rb") as handle:
            return handle.read() != content
    except OSError:
        return True
