"""The README is the front door: short, linking every doc, and every relative link of the docs resolves.

Checked on README.md, docs/*.md and roles/*/README.md: each relative Markdown link or image, `[text](path)` or
`[text](path#anchor)`, names a file that exists, and an anchor names a heading of the target file by GitHub's
slug. Links inside code (fenced blocks and `inline code`) and links with a scheme (https:, mailto:) are not
checked. No network.
"""
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
README_MAX_LINES = 250

# [text](target) or ![alt](target), with an optional "title"; the text may hold brackets one level deep.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def doc_files():
    files = [README, *sorted((ROOT / "docs").glob("*.md")), *sorted(ROOT.glob("roles/*/README.md"))]
    return [path for path in files if path.is_file()]


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            continue
        if fence is not None:
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
            continue
        yield number, line


def slug(heading):
    """GitHub's anchor of a heading: the text without markup, lower case, punctuation dropped, spaces as -."""
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    """Every anchor a file offers: its headings' slugs (a repeated one gets -1, -2 ...) and explicit HTML anchors."""
    found, seen = set(), {}
    for _, line in prose_lines(path):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else "%s-%d" % (base, count))
        found.update(HTML_ANCHOR.findall(line))
    return found


def relative_links(path):
    """(line number, target) of every relative link outside code."""
    for number, line in prose_lines(path):
        for match in LINK.finditer(INLINE_CODE.sub("", line)):
            target = match.group(1)
            if not SCHEME.match(target) and not target.startswith("//"):
                yield number, target


def broken_links(path, root=ROOT):
    """One line per relative link of the file that names no file, or no heading of its target."""
    problems = []
    for number, target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        where = "%s:%d: %s" % (path.relative_to(root), number, target)
        if not dest.exists():
            problems.append("%s: no such file" % where)
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append("%s: no heading with the anchor #%s in %s" % (where, anchor, dest.relative_to(root)))
    return problems


def unlinked_docs(root=ROOT):
    """The docs/*.md that the README does not link to."""
    readme = root / "README.md"
    linked = {(readme.parent / target.partition("#")[0]).resolve() for _, target in relative_links(readme)}
    docs = sorted((root / "docs").glob("*.md"))
    return [str(path.relative_to(root)) for path in docs if path.resolve() not in linked]


@pytest.mark.parametrize("path", doc_files(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves(path):
    problems = broken_links(path)
    assert not problems, "\n".join(problems)


def test_the_readme_is_short():
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, "README.md has %d lines, at most %d" % (lines, README_MAX_LINES)


def test_the_readme_links_every_doc():
    unlinked = unlinked_docs()
    assert not unlinked, "not linked from README.md: %s" % ", ".join(unlinked)


def test_the_checks_catch_what_they_should(tmp_path):
    """The checker itself: a missing file, a missing anchor and an unlinked doc are found; code is skipped."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## Where the suite's time goes\n\n## Twice\n\n## Twice\n")
    readme = tmp_path / "README.md"
    readme.write_text(
        "# Title\n\n"
        "[ok](docs/a.md#where-the-suites-time-goes) [ok](docs/a.md#twice-1) [ok](#title) [web](https://x.y/z)\n"
        "[gone](docs/b.md) [bad anchor](docs/a.md#nowhere) `[code](docs/c.md)`\n\n"
        "```\n[fenced](docs/d.md)\n```\n")
    (tmp_path / "docs" / "unlinked.md").write_text("# Nobody links here\n")
    assert broken_links(readme, tmp_path) == [
        "README.md:4: docs/b.md: no such file",
        "README.md:4: docs/a.md#nowhere: no heading with the anchor #nowhere in docs/a.md",
    ]
    assert unlinked_docs(tmp_path) == ["docs/unlinked.md"]
    assert slug("The `bench_scenario` knob, [linked](x.md) & more!") == "the-bench_scenario-knob-linked--more"
