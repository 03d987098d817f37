"""A figure is defined in docs/metrics.md only: another document names it and links there, but never restates its
rule or formula, so that two definitions cannot drift apart (the peak throughput once had two).

A figure is a key of docs/metrics.md's tables (those with a **rounding** column): `makespan_s`,
`capacity.limited_by`, and the last part of a dotted key when it is a name of its own (`limited_by`). A document
defines it when, in the clause that follows the figure's name, it writes a formula or says how it is computed:
`=`, a division or a subtraction between words (` / `, ` − `), "divided by", "computed as", "defined as", "is
computed", "the p50 of" and the like. Fenced code (commands, JSON examples) is left out; `inline code` counts only
as a word of the clause.
"""
import re

import pytest
from doc_reading import ROOT, doc_files, prose_lines

METRICS = ROOT / "docs" / "metrics.md"
# Names of figures too common as plain words or as the names of other things to tell apart in prose.
COMMON_NAMES = {"created", "bound", "job", "pod", "node", "tenant", "priority", "gang", "pods", "name", "scenario",
                "complete", "namespace", "scheduler", "workload", "findings", "tenants", "cluster", "phases",
                "description", "how_ended", "reason", "start", "end", "events", "checks", "burst", "scale"}
DEFINITION = re.compile(r"\bdivided by\b|\bcomputed (?:as|from)\b|\bdefined as\b|\bis computed\b|\bis defined\b"
                        r"|(?<![=!<>])=(?![=>])|\s/\s|\s−\s|\bthe (?:p50|p90|p99|median|mean|sum) of\b", re.IGNORECASE)
CODE = re.compile(r"`[^`]*`")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
CLAUSE_END = re.compile(r"[.;](?:\s|$)|\s\|\s|\(\[|$")


def figures(metrics=METRICS):
    """The figure names of docs/metrics.md's tables that have a rounding column."""
    names, in_table = set(), False
    for _, line in prose_lines(metrics):
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]] if line.startswith("|") else []
        if not cells:
            in_table = False
        elif "rounding" in cells:
            in_table = cells[0] in ("key", "column")  # not the tables of files, records, processes or versions
        elif in_table and not set(cells[0]) <= {"-"}:
            for key in re.findall(r"`([^`]+)`", cells[0]):
                last = key.split(".")[-1].replace("[]", "")
                names.update(name for name in (key, last) if "*" not in name and "<" not in name)
    return {name for name in names if name not in COMMON_NAMES and not name.startswith("workload")}


def clauses(path):
    """(line number, text) of the document's prose: each paragraph, list item and table row as one text (a
    sentence may wrap), numbered by its first line, with the lines' positions kept by their offsets."""
    block, start = [], None
    for number, line in prose_lines(path):
        if not line.strip() or line.startswith("|") or re.match(r"^\s*([-*]|\d+\.)\s", line):
            if block:
                yield start, " ".join(block)
            block, start = ([line], number) if line.strip() else ([], None)
            continue
        if not block:
            start = number
        block.append(line.strip())
    if block:
        yield start, " ".join(block)


def definitions_in(path, names, root=ROOT):
    """One line per clause of the document that follows a figure's name with a formula or a rule."""
    found = []
    for number, text in clauses(path):
        for match in re.finditer(r"`([^`]+)`", text):
            if match.group(1) not in names:
                continue
            clause = CODE.sub("CODE", LINK_TARGET.sub("]", text[match.end():]))
            clause = clause[:CLAUSE_END.search(clause).start()]
            if DEFINITION.search(clause):
                found.append("%s:%d: `%s`%s" % (path.relative_to(root), number, match.group(1), clause.rstrip()))
    return found


def other_documents():
    return [path for path in doc_files() if path != METRICS]


FIGURES = figures()


@pytest.mark.parametrize("path", other_documents(), ids=lambda path: str(path.relative_to(ROOT)))
def test_a_figure_is_defined_in_the_metrics_doc_only(path):
    found = definitions_in(path, FIGURES)
    assert not found, "defined in docs/metrics.md only; link to it instead:\n" + "\n".join(found)


def test_the_figures_are_read_from_the_metrics_doc():
    assert {"makespan_s", "peak_throughput_pods_per_s", "efficiency", "capacity.limited_by", "limited_by"} <= FIGURES


def test_the_checker_finds_a_planted_definition(tmp_path):
    """A formula, a rule in words and a division after a figure are found; a link, a value, a path and code are not."""
    doc = tmp_path / "docs" / "report.md"
    doc.parent.mkdir()
    doc.write_text(
        "- `efficiency`: bound / makespan ([metrics](metrics.md#capacity)).\n\n"
        "The `peak_throughput_pods_per_s` is computed as the busiest aligned second.\n\n"
        "Each records `share_of_host_ceiling` in `summary.json`: its mean throughput divided by the\nceiling.\n\n"
        "The `makespan_s` ([defined](metrics.md#throughput-and-latency)) was 33.8 s; `makespan_s` of 12 runs.\n"
        "See `module_utils/cluster/capacity.py` for `efficiency`. Run `make bench ARGS='-e bench_jobs=100'`.\n"
        "```\n\"efficiency\": 0.5, makespan_s = 3\n```\n")
    assert definitions_in(doc, FIGURES, tmp_path) == [
        "docs/report.md:1: `efficiency`: bound / makespan",
        "docs/report.md:3: `peak_throughput_pods_per_s` is computed as the busiest aligned second",
        "docs/report.md:5: `share_of_host_ceiling` in CODE: its mean throughput divided by the ceiling",
    ]
