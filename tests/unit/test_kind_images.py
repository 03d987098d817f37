"""tests/infra/kind-images/kindimg.py: the pure parts of the offline kind image build (test set-up)."""
import importlib.util
import io
import json
import pathlib
import tarfile

import pytest

_PATH = pathlib.Path(__file__).resolve().parents[1] / "infra" / "kind-images" / "kindimg.py"
_SPEC = importlib.util.spec_from_file_location("kindimg_under_test", _PATH)
kindimg = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(kindimg)


@pytest.mark.parametrize("short, full", [
    ("kindest/kindnetd:v20250214-acbabc1a", "docker.io/kindest/kindnetd:v20250214-acbabc1a"),
    ("busybox:1", "docker.io/library/busybox:1"),
    ("registry.k8s.io/pause:3.10", "registry.k8s.io/pause:3.10"),
    ("localhost/x:1", "localhost/x:1"),
    ("127.0.0.1:5001/a/b:c", "127.0.0.1:5001/a/b:c"),
])
def test_full_name_is_how_kind_names_an_image(short, full):
    assert kindimg.full_name(short) == full


def test_version_set_is_the_one_whose_node_image_has_the_version():
    name, pins = kindimg.version_set("v1.32.2")
    assert (name, pins["kind"]) == ("modern", "v0.27.0")
    assert kindimg.version_set("v1.27.1")[1]["kind"] == "v0.19.0"


def test_unknown_version_names_the_allowed_ones():
    with pytest.raises(SystemExit, match="v1.99.0 has no kind node image.*allowed: v1.32.2, v1.27.1"):
        kindimg.version_set("v1.99.0")


def test_go_mod_replaces_every_staging_module_by_its_release():
    text = kindimg.go_mod("v1.32.2", "v3.5.16")
    assert "\tk8s.io/kubernetes v1.32.2\n" in text and "\tgo.etcd.io/etcd/server/v3 v3.5.16\n" in text
    assert "\tk8s.io/client-go => k8s.io/client-go v0.32.2\n" in text
    assert "v1.32.2" not in text.split("replace (", 1)[1]


def _archive(path, manifest, order):
    with tarfile.open(path, "w") as tar:
        for name in order:
            data = json.dumps(manifest if name == "manifest.json" else {"x": 1}).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_rewritten_archive_names_every_image_first(tmp_path):
    manifest = [{"Config": "aaa.json", "RepoTags": ["registry.k8s.io/kube-proxy:v1.32.2"], "Layers": ["l1/layer.tar"]},
                {"Config": "bbb.json", "RepoTags": ["kindest/kindnetd:v1"], "Layers": ["l2/layer.tar"]}]
    _archive(tmp_path / "in.tar", manifest, ["l1/layer.tar", "aaa.json", "manifest.json", "repositories"])
    kindimg.rewrite_archive(tmp_path / "in.tar", tmp_path / "out.tar")
    with tarfile.open(tmp_path / "out.tar") as tar:
        names = tar.getnames()
        repositories = json.load(tar.extractfile("repositories"))
        rewritten = json.load(tar.extractfile("manifest.json"))
    assert names[0] == "repositories" and sorted(names) == sorted(["repositories", "manifest.json", "l1/layer.tar",
                                                                   "aaa.json"])
    assert repositories == {"registry.k8s.io/kube-proxy": {"v1.32.2": "aaa"}, "docker.io/kindest/kindnetd": {"v1": "bbb"}}
    assert rewritten[1]["RepoTags"] == ["docker.io/kindest/kindnetd:v1"]
