"""A result directory for the unit and end-to-end tests: summary.json against schemas/summary.schema.json, and the
rows of its CSV files, stored compressed or not."""
import csv
import io
import json
import os

import jsonschema
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import files as bench_result_files

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_PATH = os.path.join(ROOT, "schemas", "summary.schema.json")
with open(SCHEMA_PATH, encoding="utf-8") as _handle:
    SCHEMA = json.load(_handle)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def summary_problems(summary):
    """One line per place where ``summary`` does not follow the schema (none: it does)."""
    return ["%s: %s" % ("/".join(str(part) for part in error.absolute_path) or "(top)", error.message)
            for error in sorted(VALIDATOR.iter_errors(summary), key=lambda error: list(error.absolute_path))]


# A latency summary (the schema's $defs/latency) is defined once in docs/metrics.md, not under each key.
LATENCY_KEYS = set(SCHEMA["$defs"]["latency"]["properties"])


def key_paths(value, prefix=""):
    """Every key of a summary as a dotted path; list items as ``[]``, the maps keyed by a name (tenants, shares,
    phases) as ``*``; the inside of a latency summary is left out."""
    out = set()
    if isinstance(value, dict) and set(value) == LATENCY_KEYS:
        return out
    if isinstance(value, dict):
        for key, item in value.items():
            named = prefix.rsplit(".", 1)[-1] in ("tenants", "shares", "targets", "phases_s")
            path = (prefix + "." if prefix else "") + ("*" if named else key)
            out.add(path)
            out |= key_paths(item, path)
    elif isinstance(value, list):
        for item in value:
            out |= key_paths(item, prefix + "[]")
    return out


def read_rows(directory, name):
    """The rows of result file ``name`` (pods.csv, jobs.csv, timeline.csv) in ``directory``, as dicts."""
    return list(csv.DictReader(io.StringIO(bench_result_files.read_text(directory, name))))
