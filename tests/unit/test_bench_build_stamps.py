"""library/bench_build_stamps.py: a finished build's versions are read from its stamp once they are kept there."""
import json

import bench_build_stamps as stamps


def asked(calls):
    def ask(path):
        calls.append(path)
        return "Kubernetes v1.32.2" if "kube" in path else "etcd Version: 3.5.16"
    return ask


def test_versions_kept_in_the_stamp_are_not_asked_again():
    calls = []
    stamp = {"kubernetes": "v1.32.2", "versions": {"kube-apiserver": "Kubernetes v1.32.2", "etcd": "etcd 3.5"}}
    versions, asked_now = stamps.versions_of(stamp, {"kube-apiserver": "/b/kube-apiserver"}, asked(calls))
    assert (versions, asked_now, calls) == ({"kube-apiserver": "Kubernetes v1.32.2"}, False, [])


def test_a_stamp_without_versions_or_missing_one_asks_every_binary():
    for stamp in ({"kubernetes": "v1.32.2"}, {"versions": {"etcd": "etcd 3.5"}},
                  {"versions": {"kube-apiserver": "not built", "etcd": "x"}}):
        calls = []
        binaries = {"kube-apiserver": "/b/kube-apiserver", "etcd": "/b/etcd"}
        versions, asked_now = stamps.versions_of(stamp, binaries, asked(calls))
        assert versions == {"kube-apiserver": "Kubernetes v1.32.2", "etcd": "etcd Version: 3.5.16"}
        assert asked_now and sorted(calls) == ["/b/etcd", "/b/kube-apiserver"]


def test_a_stamp_that_is_missing_or_cut_short_is_no_stamp(tmp_path):
    assert stamps.read_stamp(str(tmp_path / "none")) is None
    (tmp_path / "cut").write_text('{"kubernetes": "v1')
    assert stamps.read_stamp(str(tmp_path / "cut")) is None
    (tmp_path / "ok").write_text(json.dumps({"kwok": "v0.6.1"}))
    assert stamps.read_stamp(str(tmp_path / "ok")) == {"kwok": "v0.6.1"}


def test_a_binary_that_cannot_run_is_not_built(tmp_path):
    assert stamps.ask_version(str(tmp_path / "missing")) == stamps.NOT_BUILT
    script = tmp_path / "tool"
    script.write_text("#!/bin/sh\necho 'tool v1.2.3'\necho 'more'\n")
    script.chmod(0o755)
    assert stamps.ask_version(str(script)) == "tool v1.2.3"
