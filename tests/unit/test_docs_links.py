"""The README is the front door: short, linking every doc, and every relative link of the docs resolves.

Checked on README.md, docs/*.md and roles/*/README.md: each relative Markdown link or image, `[text](path)` or
`[text](path#anchor)`, names a file that exists, and an anchor names a heading of the target file by GitHub's
slug. Links inside code (fenced blocks and `inline code`) and links with a scheme (https:, mailto:) are not
checked. No network.
"""
import pytest
from doc_reading import ROOT, anchors, doc_files, relative_links, slug

README = ROOT / "README.md"
README_MAX_LINES = 250


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
