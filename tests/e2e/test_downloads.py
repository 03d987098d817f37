"""Every download verified (issue 11): the kind role's download path against a file served on 127.0.0.1
through kind_download_url. A file whose sha256 is not the table's stops the run naming the file, the
expected and the found sum, and is not installed; a version without an entry is refused before any
request; the right file is installed. (kind itself cannot run here: this stops at `kind version`.)"""
import functools
import hashlib
import http.server
import os
import threading

import pytest
from conftest import failure_text, run_playbook

FAKE_KIND = b'#!/bin/sh\necho "kind v0.27.0 go1.24.0 linux/amd64"\n'


@pytest.fixture
def served(tmp_path):
    """An HTTP server on 127.0.0.1 serving tmp_path/www; yields (base URL, request paths)."""
    root = tmp_path / "www" / "v0.27.0"
    root.mkdir(parents=True)
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine, os.uname().machine)
    (root / ("kind-linux-" + arch)).write_bytes(FAKE_KIND)
    requests = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            requests.append(self.path)

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(tmp_path / "www")))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d" % server.server_address[1], arch, requests
    server.shutdown()


def install(tmp_path, base, checksums, label):
    extravars = {
        "kind_version": "v0.27.0",
        "kind_download_url": base + "/{{ kind_version }}/kind-linux-{{ kind_arch }}",
        "kind_checksums": checksums,
        "kind_cache_dir": str(tmp_path / "cache"),
        "kind_bin_dir": str(tmp_path / "bin"),
    }
    return run_playbook(tmp_path, "tests/e2e/playbooks/kind-download.yml", extravars, label=label)


def test_a_download_that_does_not_match_stops_the_run_naming_it(tmp_path, served):
    base, arch, requests = served
    expected = "0" * 64
    runner = install(tmp_path, base, {"v0.27.0-" + arch: expected}, "mismatch")
    assert runner.rc != 0
    found = hashlib.sha256(FAKE_KIND).hexdigest()
    text = failure_text(runner)
    url = "%s/v0.27.0/kind-linux-%s" % (base, arch)
    assert ("kind downloaded from %s has sha256 %s, expected %s (kind_checksums['v0.27.0-%s']): not installed"
            % (url, found, expected, arch)) in text, text
    assert requests, "nothing was downloaded"
    assert not (tmp_path / "bin" / "kind").exists()
    leftovers = [name for _d, _s, files in os.walk(tmp_path / "cache") for name in files]
    assert leftovers == [], leftovers


def test_a_version_without_a_checksum_is_refused_before_downloading(tmp_path, served):
    base, arch, requests = served
    runner = install(tmp_path, base, {}, "unknown")
    assert runner.rc != 0
    text = failure_text(runner)
    assert "kind_checksums has no 'v0.27.0-%s'" % arch in text, text
    assert requests == []


def test_a_download_that_matches_is_installed(tmp_path, served):
    base, arch, _requests = served
    runner = install(tmp_path, base, {"v0.27.0-" + arch: hashlib.sha256(FAKE_KIND).hexdigest().upper()}, "match")
    assert runner.rc == 0, failure_text(runner)
    assert (tmp_path / "bin" / "kind").read_bytes() == FAKE_KIND
