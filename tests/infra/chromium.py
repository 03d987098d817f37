"""Headless Chromium for the tests and the docs' screenshots (`make chromium` installs Debian's package).

``layout`` opens a page the way a laptop shows it and returns what the browser measured: a copy of the page, beside
it so that its images load, carries a script that writes the measurements into the DOM once the page has loaded, and
Chromium's --dump-dom prints that DOM. ``screenshot`` takes a PNG of a page:

    python tests/infra/chromium.py screenshot results/<run_id>/report.html docs/report-laptop.png [height]
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

WIDTH, HEIGHT = 1280, 900
# As root, without a sandbox, and nothing that reaches the network or a desktop session.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]
MEASURED_ID = "chromium-layout"
# Every table's and chart's (svg's) box, the page's width and the viewport's, the runs (data-run) of a table's rows and
# of a chart's points and interval bars; written as JSON into <pre id=MEASURED_ID>.
MEASURE = """<script>
window.addEventListener("load", function () {
  var box = function (element) {
    var rect = element.getBoundingClientRect();
    return {left: rect.left, right: rect.right, width: rect.width, height: rect.height};
  };
  var out = {viewport: document.documentElement.clientWidth, page: document.documentElement.scrollWidth,
             tables: [], charts: []};
  document.querySelectorAll("table").forEach(function (table) {
    var entry = box(table);
    entry.caption = table.caption ? table.caption.textContent : "";
    entry.first_header = table.rows.length ? table.rows[0].cells[0].textContent : "";
    entry.columns = table.rows.length ? table.rows[0].cells.length : 0;
    entry.runs = Array.from(table.querySelectorAll("tr[data-run]"), function (row) { return row.dataset.run; });
    out.tables.push(entry);
  });
  document.querySelectorAll("svg").forEach(function (svg) {
    var entry = box(svg);
    var section = svg.closest("section");
    entry.chart = svg.dataset.chart || svg.id;
    entry.line = section ? section.dataset.config : "";
    entry.runs = Array.from(svg.querySelectorAll("circle"), function (point) { return point.dataset.run; });
    entry.intervals = Array.from(svg.querySelectorAll("g.interval"), function (bar) { return bar.dataset.run; });
    out.charts.push(entry);
  });
  var pre = document.createElement("pre");
  pre.id = "%s";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>""" % MEASURED_ID


def binary():
    found = shutil.which("chromium")
    if found is None:
        raise RuntimeError("chromium is not installed: run `make chromium` (Debian's package)")
    return found


def run(arguments, url, height=HEIGHT, timeout=120):
    """Chromium's stdout for ``url`` in a 1280 px wide window, with a new, empty profile."""
    with tempfile.TemporaryDirectory(prefix="sched-bench-chromium-") as profile:
        done = subprocess.run([binary(), *FLAGS, "--user-data-dir=" + profile, "--window-size=%d,%d" % (WIDTH, height),
                               *arguments, url], capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError("chromium exited %d: %s" % (done.returncode, done.stderr[-2000:]))
    return done.stdout


def dom(page):
    """The DOM of a page (a path) once Chromium has loaded it, as HTML text."""
    return run(["--dump-dom"], pathlib.Path(page).resolve().as_uri())


def layout(page):
    """What Chromium measured on ``page`` at 1280 px: {viewport, page, tables: [...], charts: [...]} (MEASURE)."""
    page = pathlib.Path(page).resolve()
    text = page.read_text(encoding="utf-8")
    if "</body>" not in text:
        raise ValueError("%s has no </body>" % page)
    probe = page.with_name(".measured-" + page.name)
    probe.write_text(text.replace("</body>", MEASURE + "</body>", 1), encoding="utf-8")
    try:
        dumped = run(["--dump-dom"], probe.as_uri())
    finally:
        probe.unlink()
    found = re.search(r'<pre id="%s">(.*?)</pre>' % MEASURED_ID, dumped, re.S)
    if found is None:
        raise RuntimeError("the measuring script wrote nothing into %s" % page)
    return json.loads(found.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


def too_wide(measured, width=WIDTH):
    """The tables and charts wider than ``width`` or reaching past the viewport, as text; empty when all fit."""
    wide = []
    for kind in ("tables", "charts"):
        for index, item in enumerate(measured[kind]):
            if item["width"] > width or item["right"] > measured["viewport"] + 0.5:
                wide.append("%s %d (%s): %.0f px wide, right edge at %.0f px of %d" % (
                    kind[:-1], index, item.get("caption") or item.get("first_header") or item.get("chart"),
                    item["width"], item["right"], measured["viewport"]))
    if measured["page"] > measured["viewport"]:
        wide.append("the page scrolls sideways: %d px of %d" % (measured["page"], measured["viewport"]))
    return wide


def screenshot(page, png, height=HEIGHT):
    """A PNG of ``page`` as a 1280 px wide window of ``height`` px shows its top."""
    run(["--screenshot=" + str(pathlib.Path(png).resolve())], pathlib.Path(page).resolve().as_uri(), height)


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5) or sys.argv[1] != "screenshot":
        sys.exit("usage: %s screenshot PAGE.html OUT.png [HEIGHT]" % os.path.basename(sys.argv[0]))
    screenshot(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) == 5 else HEIGHT)
