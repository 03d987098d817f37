# -*- coding: utf-8 -*-
"""The text of ``go tool pprof -top`` as data, and the load test's profiles.json put together from it.

``parse_top`` reads one report: the profile's type, its total, the share of it the listed functions account for and,
per function, pprof's flat and cumulative values (in the profile's base unit: seconds of CPU, bytes, or a count) and
their shares of the total. pprof's own definitions: a function's flat value is what was sampled in the function
itself, its cumulative value what was sampled in it and in everything it called; the shares are of the profile's
total (for a CPU profile the CPU time sampled, for the heap's inuse_space the bytes in use).

``profiles_document`` turns what roles/loadtest/tasks/profiles.yml registered (the fetches, and the output of the one
command that reads every profile: per profile, after PROFILE_MARKER, its two reports, by flat and by cumulative value,
separated by CUM_MARKER) into profiles.json: per profile ``<component>-<cpu|heap>`` the parsed reports, or why there
are none. Pure: no I/O.
"""
from __future__ import annotations

import re

KINDS = ("cpu", "heap")
# The lines the reading command (roles/loadtest/tasks/profiles.yml) prints: before each profile's part of its output
# (with the profile's name), between the report sorted by flat value and the one sorted by cumulative value, and
# when a profile could not be read (with why).
PROFILE_MARKER = "@@ profile "
CUM_MARKER = "@@ sorted by cumulative value"
ERROR_MARKER = "@@ error "
# pprof's scaled units (github.com/google/pprof internal/measurement): the factor to the base unit of each kind.
_UNITS = {
    "ns": ("s", 1e-9), "us": ("s", 1e-6), "\u00b5s": ("s", 1e-6), "\u03bcs": ("s", 1e-6), "ms": ("s", 1e-3),
    "s": ("s", 1.0), "mins": ("s", 60.0), "hrs": ("s", 3600.0),
    "B": ("B", 1.0), "kB": ("B", 2.0 ** 10), "MB": ("B", 2.0 ** 20), "GB": ("B", 2.0 ** 30), "TB": ("B", 2.0 ** 40),
    "PB": ("B", 2.0 ** 50),
}
_VALUE = re.compile(r"^(-?[0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?)(\D*)$")
_HEADER = re.compile(r"^\s*flat\s+flat%\s+sum%\s+cum\s+cum%\s*$")
_ROW = re.compile(r"^\s*(\S+)\s+(\S+)%\s+(\S+)%\s+(\S+)\s+(\S+)%\s\s(.+?)\s*$")
_INLINE = re.compile(r"\s+\((?:partial-)?inline\)$")
_SHOWING = re.compile(r"^Showing nodes accounting for (\S+), (\S+)% of (\S+) total$")
_SHOWN_OF = re.compile(r"^Showing top (\d+) nodes out of (\d+)$")
_DURATION = re.compile(r"^Duration: (\S+), Total samples = (\S+)")
# The labels above the table that are kept, and their keys (File is the profiled program).
_LABELS = {"Type": "type", "File": "binary", "Time": "time"}
_TYPE_UNITS = {"cpu": "s", "inuse_space": "B", "alloc_space": "B"}


def parse_value(text):
    """(number in the base unit, base unit) of one of pprof's values: '1.50s' (1.5, 's'), '10ms' (0.01, 's'),
    '2.50MB' (2621440.0, 'B'), '0' (0.0, ''), '1234' (a count: 1234.0, ''). Raises ValueError for anything else."""
    match = _VALUE.match(text.strip())
    if not match:
        raise ValueError("not a pprof value: %r" % text)
    number, unit = float(match.group(1)), match.group(2)
    if not unit:
        return number, ""
    if unit not in _UNITS:
        raise ValueError("unknown pprof unit %r in %r" % (unit, text))
    base, factor = _UNITS[unit]
    return number * factor, base


def _round(number):
    return float("%.6g" % number)


def _row(match, units):
    flat, flat_unit = parse_value(match.group(1))
    cum, cum_unit = parse_value(match.group(4))
    units.update(unit for unit in (flat_unit, cum_unit) if unit)
    name = match.group(6)
    return {"function": _INLINE.sub("", name), "inline": bool(_INLINE.search(name)), "flat": _round(flat),
            "flat_pct": float(match.group(2)), "cum": _round(cum), "cum_pct": float(match.group(5))}


def _header(line, parsed, units):
    """Read one of the lines above the table into ``parsed``."""
    showing = _SHOWING.match(line)
    if showing:
        shown, shown_unit = parse_value(showing.group(1))
        total, total_unit = parse_value(showing.group(3))
        units.update(unit for unit in (shown_unit, total_unit) if unit)
        parsed.update(total=_round(total), shown=_round(shown), shown_fraction=_round(float(showing.group(2)) / 100))
        return
    shown_of = _SHOWN_OF.match(line)
    if shown_of:
        parsed["nodes"] = int(shown_of.group(2))
        return
    duration = _DURATION.match(line)
    if duration:
        parsed["duration_s"] = _round(parse_value(duration.group(1))[0])
        return
    key, sep, value = line.partition(": ")
    if sep and key in _LABELS:
        parsed[_LABELS[key]] = value.strip()


def parse_top(text):
    """``go tool pprof -top`` output as {"type", "unit", "total", "shown", "shown_fraction", "functions": [{"function",
    "inline", "flat", "flat_pct", "cum", "cum_pct"}, ...]} in the report's order (by flat value, or by cumulative value
    with -cum), plus "binary" (the program profiled), "time", "duration_s" and "nodes" (all the profile's, when
    -nodecount left some out) when the report says them. "unit" is "s" (time), "B" (bytes) or "" (a count; an empty
    profile has its type's unit).
    Raises ValueError when ``text`` is not such a report."""
    parsed, units, functions, in_table = {}, set(), [], False
    for line in text.splitlines():
        if in_table:
            if line.strip():
                match = _ROW.match(line)
                if not match:
                    raise ValueError("not a row of go tool pprof -top: %r" % line)
                functions.append(_row(match, units))
        elif _HEADER.match(line):
            in_table = True
        elif line.strip():
            _header(line, parsed, units)
    if not in_table or "total" not in parsed:
        raise ValueError("not the output of go tool pprof -top (no table of flat and cum values)")
    if len(units) > 1:
        raise ValueError("go tool pprof -top mixes units: %s" % ", ".join(sorted(units)))
    # A profile with nothing sampled prints only 0s: its unit is its type's.
    parsed["unit"] = units.pop() if units else _TYPE_UNITS.get(parsed.get("type"), "")
    parsed.setdefault("nodes", len(functions))
    parsed["functions"] = functions
    return parsed


def parse_reports(text):
    """The two reports of one reading command: the one by flat value, with the functions of the one by cumulative
    value (after CUM_MARKER) as "functions_by_cum"."""
    flat_text, _, cum_text = text.partition(CUM_MARKER)
    parsed = parse_top(flat_text)
    if cum_text.strip():
        parsed["functions_by_cum"] = parse_top(cum_text)["functions"]
    return parsed


def _last_line(text):
    lines = [line.strip() for line in str(text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _fetch_errors(results, component_of):
    """Component -> why its profile was not fetched, from the registered results of a loop of fetches."""
    errors = {}
    for result in results or []:
        component = component_of(result)
        if component is None or result.get("skipped") or result.get("status") == 200:
            continue
        status = " (HTTP %s)" % result["status"] if isinstance(result.get("status"), int) and result["status"] > 0 else ""
        errors[component] = "not fetched%s: %s" % (status, _last_line(result.get("msg")) or "no answer")
    return errors


def _start_component(result):
    """The component of a CPU profile's wait: its loop item is the start's result, whose item is {key, value}."""
    item = (result.get("item") or {}).get("item") or {}
    return item.get("key")


def split_read(text):
    """Profile name -> its part of the reading command's output (after PROFILE_MARKER and the name)."""
    parts, name = {}, None
    for line in str(text or "").splitlines(keepends=True):
        if line.startswith(PROFILE_MARKER):
            name = line[len(PROFILE_MARKER):].strip()
            parts[name] = ""
        elif name is not None:
            parts[name] += line
    return parts


def _read_entry(name, text, seconds):
    """One profile's entry from its part of the reading command's output."""
    entry = {"file": name + ".pprof"}
    if name.endswith("-cpu"):
        entry["seconds"] = seconds
    else:
        entry["sample_index"] = "inuse_space"
    errors = [line[len(ERROR_MARKER):].strip() for line in text.splitlines() if line.startswith(ERROR_MARKER)]
    if errors:
        # go tool pprof's own message (its stderr, merged) is in the lines before the marker's.
        said = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("@@ ")]
        entry["error"] = errors[0] + (": " + "; ".join(said[-3:]) if said else "")
        return entry
    try:
        entry.update(parse_reports(text))
    except ValueError as exc:
        entry["error"] = "go tool pprof's output did not parse: %s" % exc
    return entry


def profiles_document(endpoints, read_output, seconds, cpu_fetches=(), heap_fetches=(), read_problem=""):
    """profiles.json: {"<component>-<cpu|heap>": entry} for every component of ``endpoints`` (component -> {"url",
    ...} or {"skipped": why}). An entry is the parsed reports (parse_reports) with "file" and, for a CPU profile,
    "seconds" (``seconds``), for a heap profile "sample_index"; or {"skipped": why} for a component without a pprof
    address, or "error" (why the profile was not fetched or not read). ``read_output`` is the reading command's output
    (split_read); ``cpu_fetches`` the registered waits for the CPU profiles (items: the starts' results) and
    ``heap_fetches`` the heap profiles' fetches (items: {key: component, value: endpoint}); ``read_problem``: why no
    profile could be read at all (no Go)."""
    errors = {"cpu": _fetch_errors(cpu_fetches, _start_component),
              "heap": _fetch_errors(heap_fetches, lambda result: (result.get("item") or {}).get("key"))}
    read = split_read(read_output)
    document = {}
    for component, endpoint in (endpoints or {}).items():
        for kind in KINDS:
            name = "%s-%s" % (component, kind)
            if not (endpoint or {}).get("url"):
                document[name] = {"skipped": (endpoint or {}).get("skipped") or "no pprof address"}
            elif component in errors[kind]:
                document[name] = {"file": name + ".pprof", "error": errors[kind][component]}
            elif name in read:
                document[name] = _read_entry(name, read[name], seconds)
            else:
                document[name] = {"file": name + ".pprof", "error": "not read" + (": " + read_problem if read_problem
                                                                                   else "")}
    return document


def document_lines(document):
    """One short phrase per profile of profiles.json, for the play's output."""
    phrases = []
    for name, entry in document.items():
        if "skipped" in entry:
            phrases.append("%s skipped (%s)" % (name, entry["skipped"]))
        elif "error" in entry:
            phrases.append("%s: %s" % (name, entry["error"]))
        else:
            phrases.append("%s: %d functions" % (name, entry.get("nodes", len(entry.get("functions") or []))))
    return phrases
