# -*- coding: utf-8 -*-
"""Which summary.json this toolkit writes and reads: its schema_version, and the one line every reader of result
files gives a file it cannot read as current (docs/metrics.md#versions). No I/O here."""
from __future__ import annotations

# Raised when a key changes meaning or goes; a new key alone keeps it (readers ignore what they do not know).
SCHEMA_VERSION = 3
# The same rule for the report's report.json and the history's history.sqlite (its PRAGMA user_version).
REPORT_SCHEMA_VERSION = 1
DATABASE_SCHEMA_VERSION = 1


def schema_version(summary):
    """The version a summary.json follows: its schema_version; 1 without one (docs/metrics.md#versions)."""
    return summary.get("schema_version", 1)


def version_problem(summary):
    """Why this toolkit cannot read ``summary`` (a summary.json document) as its figures say: ("newer", line) for one
    written by a newer toolkit, ("unreadable", line) for a schema_version that is no version; None when it reads it
    (an older version is read, its missing figures named by its version: docs/metrics.md#versions)."""
    version = schema_version(summary)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        return "unreadable", "summary.json's schema_version %r is not a version (1 to %d)" % (version, SCHEMA_VERSION)
    if version > SCHEMA_VERSION:
        return "newer", newer_line(version, SCHEMA_VERSION)
    return None


def newer_line(version, reads_up_to, what="schema"):
    """The one line every reader gives a file that a newer toolkit wrote."""
    return "written by a newer toolkit (%s %d, this one reads up to %d)" % (what, version, reads_up_to)


def schema_file(version):
    """The file of schemas/ that describes summary.json of ``version``: summary.schema.json for SCHEMA_VERSION,
    summary.v<N>.schema.json for an older one."""
    return "summary.schema.json" if version == SCHEMA_VERSION else "summary.v%d.schema.json" % version
