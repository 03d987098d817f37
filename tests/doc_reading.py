"""Reading the project's Markdown as GitHub shows it: prose outside fenced code, headings' anchors, relative links.

Shared by the document tests (tests/unit/test_docs_links.py, tests/lint/test_doc_paths.py and the others there).
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]

# [text](target) or ![alt](target), with an optional "title"; the text may hold brackets one level deep.
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def doc_files(root=ROOT):
    """README.md, docs/*.md and every role's README.md."""
    files = [root / "README.md", *sorted((root / "docs").glob("*.md")), *sorted(root.glob("roles/*/README.md"))]
    return [path for path in files if path.is_file()]


def numbered_lines(path, fenced=False):
    """(line number, text) of the lines outside fenced code blocks, or, with fenced=True, inside them."""
    fence = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            continue
        if fence is not None:
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
            elif fenced:
                yield number, line
            continue
        if not fenced:
            yield number, line


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    return numbered_lines(path)


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
