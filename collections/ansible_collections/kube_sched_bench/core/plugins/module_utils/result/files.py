# -*- coding: utf-8 -*-
"""The files of one result directory (results/<run>/<host>/<scheduler>/): which are stored compressed, and one
reader for what any version wrote. The files themselves: docs/metrics.md."""
from __future__ import annotations

import gzip
import io
import os

# One row per pod and per job: gzip keeps a 100,000-pod result within 5 MB (docs/metrics.md#size).
COMPRESSED = ("pods.csv", "jobs.csv")


def stored_name(name):
    """The file name ``name`` is stored under: pods.csv.gz for pods.csv."""
    return name + ".gz" if name in COMPRESSED else name


def encode(name, text):
    """The bytes to store for ``name`` (stored_name): gzip, without a time stamp, for COMPRESSED ones."""
    data = text.encode("utf-8")
    if name not in COMPRESSED:
        return data
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as out:
        out.write(data)
    return buffer.getvalue()


def read_text(directory, name):
    """The text of result file ``name`` in ``directory``, stored compressed or not (results written before
    2026-12-03 have plain pods.csv and jobs.csv); "" when there is neither."""
    for candidate in dict.fromkeys((stored_name(name), name)):
        path = os.path.join(directory, candidate)
        try:
            if candidate.endswith(".gz"):
                with gzip.open(path, "rt", encoding="utf-8") as handle:
                    return handle.read()
            with open(path, "r", encoding="utf-8") as handle:
                return handle.read()
        except (OSError, EOFError):
            continue
    return ""
