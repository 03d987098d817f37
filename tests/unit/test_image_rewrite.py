"""The image reference rewriting filter (plugin_utils/releases/images.py)."""

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.releases import images as image_rewrite_mod

rewrite = image_rewrite_mod.image_rewrite

DIGEST = "sha256:" + "ab" * 32


@pytest.mark.parametrize("ref, canonical, local", [
    ("nginx", "docker.io/library/nginx:latest", "localhost:5001/library/nginx:latest"),
    ("nginx:1.27", "docker.io/library/nginx:1.27", "localhost:5001/library/nginx:1.27"),
    ("library/nginx:1.27", "docker.io/library/nginx:1.27", "localhost:5001/library/nginx:1.27"),
    ("docker.io/nginx:1.27", "docker.io/library/nginx:1.27", "localhost:5001/library/nginx:1.27"),
    ("index.docker.io/library/nginx:1.27", "docker.io/library/nginx:1.27", "localhost:5001/library/nginx:1.27"),
    ("kindest/node:v1.32.2", "docker.io/kindest/node:v1.32.2", "localhost:5001/kindest/node:v1.32.2"),
    ("user/img", "docker.io/user/img:latest", "localhost:5001/user/img:latest"),
    ("registry.k8s.io/kube-scheduler:v1.32.2", "registry.k8s.io/kube-scheduler:v1.32.2",
     "localhost:5001/registry.k8s.io/kube-scheduler:v1.32.2"),
    ("registry.k8s.io/kwok/kwok:v0.6.1", "registry.k8s.io/kwok/kwok:v0.6.1",
     "localhost:5001/registry.k8s.io/kwok/kwok:v0.6.1"),
    ("ghcr.io/volcano-sh/vc-scheduler:v1.11.0", "ghcr.io/volcano-sh/vc-scheduler:v1.11.0",
     "localhost:5001/ghcr.io/volcano-sh/vc-scheduler:v1.11.0"),
    ("quay.io/jetstack/cert-manager-controller:v1.16.2", "quay.io/jetstack/cert-manager-controller:v1.16.2",
     "localhost:5001/quay.io/jetstack/cert-manager-controller:v1.16.2"),
    ("registry.example.com:5000/team/app:1", "registry.example.com:5000/team/app:1",
     "localhost:5001/registry.example.com:5000/team/app:1"),
    ("nginx@" + DIGEST, "docker.io/library/nginx@" + DIGEST, "localhost:5001/library/nginx@" + DIGEST),
    ("nginx:1.27@" + DIGEST, "docker.io/library/nginx:1.27@" + DIGEST,
     "localhost:5001/library/nginx:1.27@" + DIGEST),
    ("registry.k8s.io/pause@" + DIGEST, "registry.k8s.io/pause@" + DIGEST,
     "localhost:5001/registry.k8s.io/pause@" + DIGEST),
])
def test_canonical_and_local(ref, canonical, local):
    assert rewrite(ref) == canonical
    assert rewrite(ref, "canonical") == canonical
    assert rewrite(ref, "local") == local


@pytest.mark.parametrize("prefix", ["m.daocloud.io/", "m.daocloud.io", "m.daocloud.io//", " m.daocloud.io/ "])
@pytest.mark.parametrize("ref, expected", [
    ("nginx", "m.daocloud.io/docker.io/library/nginx:latest"),
    ("user/img:2", "m.daocloud.io/docker.io/user/img:2"),
    ("registry.k8s.io/kube-scheduler:v1.32.2", "m.daocloud.io/registry.k8s.io/kube-scheduler:v1.32.2"),
    ("ghcr.io/volcano-sh/vc-scheduler:v1.11.0", "m.daocloud.io/ghcr.io/volcano-sh/vc-scheduler:v1.11.0"),
    ("quay.io/prometheus/prometheus:v3.0.0", "m.daocloud.io/quay.io/prometheus/prometheus:v3.0.0"),
    ("kindest/node:v1.27.1@" + DIGEST, "m.daocloud.io/docker.io/kindest/node:v1.27.1@" + DIGEST),
])
def test_mirror_prefix_with_and_without_trailing_slash(prefix, ref, expected):
    assert rewrite(ref, "mirror", prefix) == expected


@pytest.mark.parametrize("prefix, expected", [
    ("mirror.example.com:5000/dockerhub/", "mirror.example.com:5000/dockerhub/docker.io/library/nginx:1.27"),
    ("mirror.example.com:5000/dockerhub", "mirror.example.com:5000/dockerhub/docker.io/library/nginx:1.27"),
    ("", "docker.io/library/nginx:1.27"),
    (None, "docker.io/library/nginx:1.27"),
])
def test_mirror_prefix_with_port_path_or_none(prefix, expected):
    assert rewrite("nginx:1.27", "mirror", prefix) == expected


def test_local_registry_is_configurable_and_idempotent():
    assert rewrite("nginx:1.27", "local", registry="127.0.0.1:5001/") == "127.0.0.1:5001/library/nginx:1.27"
    local = rewrite("registry.k8s.io/pause:3.10", "local")
    assert rewrite(local, "local") == local


@pytest.mark.parametrize("ref, words", [
    ("", "not allowed"),
    (None, "not allowed"),
    ("nginx 1.27", "not allowed"),
    ("Nginx:1.27", "lower case"),
    ("nginx:", "malformed tag"),
    ("nginx:1.27@sha256:1234", "malformed digest"),
    ("nginx@md5:" + "a" * 32, "malformed digest"),
    ("registry_k8s.io:x/pause:3.10", "malformed registry host"),
])
def test_bad_references_are_refused_with_the_value(ref, words):
    with pytest.raises(AnsibleFilterError) as err:
        rewrite(ref, "local")
    assert words in str(err.value)
    assert repr(ref) in str(err.value)


@pytest.mark.parametrize("prefix", ["https://m.daocloud.io/", "m.daocloud io/", "/docker.io/"])
def test_bad_prefixes_are_refused(prefix):
    with pytest.raises(AnsibleFilterError, match="image prefix"):
        rewrite("nginx", "mirror", prefix)


def test_unknown_target_is_refused():
    with pytest.raises(AnsibleFilterError, match="canonical, mirror, local"):
        rewrite("nginx", "remote")


def test_filter_is_registered():
    import image_rewrite  # the filter file, filter_plugins/

    assert image_rewrite.FilterModule().filters()["image_rewrite"] is rewrite
