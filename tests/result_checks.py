"""A result directory for the unit and end-to-end tests: each of its files against its schema (schemas/:
summary.json by its schema_version, scenario.json, env.json, the CSV files' headers and cells), and the rows of its
CSV files, stored compressed or not."""
import csv
import functools
import io
import json
import os
import re

import jsonschema
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import files as bench_result_files
from ansible_collections.kube_sched_bench.core.plugins.module_utils.result import schema as bench_summary

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA_DIR = os.path.join(ROOT, "schemas")
CSV_FILES = ("pods.csv", "jobs.csv", "timeline.csv")
# Enough to say what is wrong with a file without printing each of 100,000 rows.
MOST_PROBLEMS = 20


@functools.lru_cache(maxsize=None)
def validator(name):
    """A validator of schemas/<name>, read once; None when there is no such file."""
    path = os.path.join(SCHEMA_DIR, name)
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as handle:
        return jsonschema.Draft202012Validator(json.load(handle))


SCHEMA_PATH = os.path.join(SCHEMA_DIR, bench_summary.schema_file(bench_summary.SCHEMA_VERSION))
VALIDATOR = validator(os.path.basename(SCHEMA_PATH))
SCHEMA = VALIDATOR.schema


def problems(checker, document, most=None):
    """One line per place where ``document`` breaks the schema of ``checker`` (none: it follows it)."""
    errors = sorted(checker.iter_errors(document), key=lambda error: [str(part) for part in error.absolute_path])
    return ["%s: %s" % ("/".join(str(part) for part in error.absolute_path) or "(top)", error.message)
            for error in errors[:most]]


def summary_schema(summary):
    """The validator of the schema that ``summary`` follows by its schema_version (absent: 1); None for a version
    without one."""
    version = bench_summary.schema_version(summary)
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= bench_summary.SCHEMA_VERSION:
        return None
    return validator(bench_summary.schema_file(version))


def summary_problems(summary):
    """One line per place where ``summary`` does not follow the schema of its version (none: it does)."""
    checker = summary_schema(summary) if isinstance(summary, dict) else None
    if checker is None:
        return ["schema_version: %r has no schema" % (summary.get("schema_version") if isinstance(summary, dict) else summary)]
    return problems(checker, summary)


def level_columns(schema, header):
    """The columns of ``header`` the schema names by pattern only (pods.csv's topology levels), which must come right
    after ``node``; None when some column is named by neither, or they are elsewhere."""
    named = set(schema["properties"])
    extra = [column for column in header if column not in named]
    patterns = list(schema.get("patternProperties") or ())
    if any(not any(re.fullmatch(pattern, column) for pattern in patterns) for column in extra):
        return None
    if extra and ("node" not in header or header[header.index("node") + 1:header.index("node") + 1 + len(extra)] != extra):
        return None
    return extra


def csv_problems(text, name, version=bench_summary.SCHEMA_VERSION):
    """One line per place where the text of result file ``name`` (pods.csv, jobs.csv, timeline.csv) breaks
    schemas/<name>.schema.json: its header (the current version: the schema's columns in their order; an older one:
    some of them in that order, from version 2 on with the required ones) and each row's cells."""
    schema = validator(name + ".schema.json").schema
    columns = list(schema["properties"])
    reader = csv.reader(io.StringIO(text))
    header = next(reader, None)
    if not header:
        return ["%s: no header" % name]
    levels, full = level_columns(schema, header), list(header)
    if levels is None:
        return ["%s: the header %s has columns the schema does not name, or not right after node" % (name, ",".join(header))]
    header = [column for column in header if column not in levels]
    if version == bench_summary.SCHEMA_VERSION and header != columns:
        return ["%s: the header is %s, the schema's columns %s" % (name, ",".join(header), ",".join(columns))]
    missing = [column for column in schema["required"] if column not in header] if version >= 2 else []
    if missing or header != [column for column in columns if column in header]:
        return ["%s: the header %s is not the schema's columns in order (%s)" % (name, ",".join(header), ",".join(columns))]
    cells = jsonschema.Draft202012Validator(dict(schema, required=[]))
    found = []
    for number, row in enumerate(reader, start=2):
        if len(row) != len(full):
            found.append("%s line %d: %d cells, the header names %d" % (name, number, len(row), len(full)))
        else:
            found += ["%s line %d, %s" % (name, number, line) for line in problems(cells, dict(zip(full, row)))]
        if len(found) >= MOST_PROBLEMS:
            return found[:MOST_PROBLEMS] + ["%s: more problems left out" % name]
    return found


def _json_file(directory, name):
    """(document, problem) of JSON file ``name`` in ``directory``; (None, None) when there is none."""
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return None, None
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle), None
    except (OSError, ValueError) as error:
        return None, "%s: %s" % (name, error)


def result_problems(directory):
    """One line per place where a file of result directory ``directory`` breaks its schema: summary.json (which must
    be there) by its version, and each of scenario.json, env.json (the controller's copy has it), pods.csv, jobs.csv
    and timeline.csv that is there."""
    summary, problem = _json_file(directory, "summary.json")
    if summary is None:
        return [problem or "summary.json: there is none"]
    found = ["summary.json " + line for line in summary_problems(summary)]
    version = bench_summary.schema_version(summary)
    for name in ("scenario.json", "env.json"):
        document, problem = _json_file(directory, name)
        found += [problem] if problem else []
        if document is not None:
            found += ["%s %s" % (name, line) for line in problems(validator(name.replace(".json", ".schema.json")), document,
                                                                 MOST_PROBLEMS)]
    for name in CSV_FILES:
        text = bench_result_files.read_text(directory, name)
        if text and isinstance(version, int):
            found += csv_problems(text, name, version)
    return found


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
