"""Every download verified (issue 11): the kind and kubectl roles' download paths against a file served on
127.0.0.1 through kind_download_url / kubectl_download_url. A file whose sha256 is not the table's stops the
run naming the file, the expected and the found sum, and is not installed; a version without an entry is
refused before any request; the right file is installed. (kind itself cannot run here: this stops at
`kind version`.)"""
import functools
import hashlib
import http.server
import os
import threading

import pytest
from conftest import failure_text, run_playbook

FAKE_KIND = b'#!/bin/sh\necho "kind v0.27.0 go1.24.0 linux/amd64"\n'
FAKE_KUBECTL = b'#!/bin/sh\necho "kubectl v1.32.2"\n'
# tool: (version, served file name, the file's content)
TOOLS = {"kind": ("v0.27.0", "kind-linux-{arch}", FAKE_KIND), "kubectl": ("v1.32.2", "{arch}-kubectl", FAKE_KUBECTL)}


@pytest.fixture(params=sorted(TOOLS))
def served(request, tmp_path):
    """An HTTP server on 127.0.0.1 serving one tool's file; yields (tool, base URL, arch, request paths)."""
    tool = request.param
    version, name, content = TOOLS[tool]
    root = tmp_path / "www" / version
    root.mkdir(parents=True)
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine, os.uname().machine)
    (root / name.format(arch=arch)).write_bytes(content)
    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            requests.append(self.path)

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(tmp_path / "www")))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield tool, "http://127.0.0.1:%d" % server.server_address[1], arch, requests
    server.shutdown()


def install(tmp_path, tool, base, checksums, label):
    version, name, _content = TOOLS[tool]
    extravars = {
        "download_role": tool,
        tool + "_version": version,
        tool + "_download_url": base + "/" + version + "/" + name.replace("{arch}", "{{ %s_arch }}" % tool),
        tool + "_checksums": checksums,
        tool + "_cache_dir": str(tmp_path / "cache"),
        tool + "_bin_dir": str(tmp_path / "bin"),
    }
    return run_playbook(tmp_path, "tests/e2e/playbooks/download.yml", extravars, label=label)


def test_a_download_that_does_not_match_stops_the_run_naming_it(tmp_path, served):
    tool, base, arch, requests = served
    version, name, content = TOOLS[tool]
    expected = "0" * 64
    runner = install(tmp_path, tool, base, {version + "-" + arch: expected}, "mismatch")
    assert runner.rc != 0
    text = failure_text(runner)
    url = "%s/%s/%s" % (base, version, name.format(arch=arch))
    # The file (the tool, its URL and its table entry), the expected and the found sum, in one line.
    line = next((line for line in text.splitlines() if "%s from %s (%s_checksums['%s-%s'])" % (tool, url, tool, version, arch)
                 in line), text)
    assert expected in line and hashlib.sha256(content).hexdigest() in line, text
    assert requests, "nothing was downloaded"
    assert not (tmp_path / "bin" / tool).exists()
    leftovers = [name for _d, _s, files in os.walk(tmp_path / "cache") for name in files]
    assert leftovers == [], leftovers


def test_a_version_without_a_checksum_is_refused_before_downloading(tmp_path, served):
    tool, base, arch, requests = served
    version = TOOLS[tool][0]
    runner = install(tmp_path, tool, base, {}, "unknown")
    assert runner.rc != 0
    text = failure_text(runner)
    assert "%s_checksums has no '%s-%s'" % (tool, version, arch) in text, text
    assert requests == []


def test_a_download_that_matches_is_installed(tmp_path, served):
    tool, base, arch, _requests = served
    version, _name, content = TOOLS[tool]
    runner = install(tmp_path, tool, base, {version + "-" + arch: hashlib.sha256(content).hexdigest().upper()}, "match")
    assert runner.rc == 0, failure_text(runner)
    assert (tmp_path / "bin" / tool).read_bytes() == content
