# -*- coding: utf-8 -*-
"""Rewrite container image references for mirrors and the local registry.

One reference, three spellings:

    canonical  docker.io/library/nginx:1.27       (what Docker resolves "nginx:1.27" to)
    mirror     m.daocloud.io/docker.io/library/nginx:1.27   (prefix + canonical)
    local      localhost:5001/library/nginx:1.27  (the registry every node reads)

In the local registry an image keeps its path; only images from registries
other than Docker Hub keep their host as the first path element
(``localhost:5001/registry.k8s.io/kube-scheduler:v1.32.2``), so that two
registries serving the same path cannot collide.
"""
from __future__ import annotations

import re

from ansible.errors import AnsibleFilterError

DOCKER_HUB = "docker.io"
DOCKER_HUB_ALIASES = {"docker.io", "index.docker.io", "registry-1.docker.io"}
DEFAULT_LOCAL_REGISTRY = "localhost:5001"
TARGETS = ("canonical", "mirror", "local")

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_PATH = re.compile(r"^%s(?:/%s)*$" % (_COMPONENT, _COMPONENT))
_TAG = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_DIGEST = re.compile(r"^sha256:[a-f0-9]{64}$")
_HOST = re.compile(r"^(?:localhost|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::\d+)?$")


def _is_host(component):
    return "." in component or ":" in component or component == "localhost"


def parse_image(ref):
    """Split an image reference into host, path, tag and digest (canonical form)."""
    text = str(ref).strip() if ref is not None else ""
    if not text or any(ch.isspace() for ch in text):
        raise AnsibleFilterError("image reference %r is not allowed: use a name such as nginx:1.27 or "
                                 "registry.k8s.io/kube-scheduler:v1.32.2" % (ref,))
    name, _, digest = text.partition("@")
    if digest and not _DIGEST.match(digest):
        raise AnsibleFilterError("image reference %r has a malformed digest: expected @sha256:<64 hex digits>" % (ref,))
    tag = ""
    last_slash = name.rfind("/")
    if name.rfind(":") > last_slash:
        name, tag = name[:name.rfind(":")], name[name.rfind(":") + 1:]
        if not _TAG.match(tag):
            raise AnsibleFilterError("image reference %r has a malformed tag %r" % (ref, tag))
    first, sep, rest = name.partition("/")
    if sep and _is_host(first):
        host, path = first, rest
        if not _HOST.match(host):
            raise AnsibleFilterError("image reference %r has a malformed registry host %r" % (ref, host))
    else:
        host, path = DOCKER_HUB, name
    if host in DOCKER_HUB_ALIASES:
        host = DOCKER_HUB
        if "/" not in path:
            path = "library/" + path
    if not _PATH.match(path):
        raise AnsibleFilterError("image reference %r is not allowed: repository names are lower case letters, "
                                 "digits and separators (. _ -) between '/'" % (ref,))
    if not tag and not digest:
        tag = "latest"
    return {"host": host, "path": path, "tag": tag, "digest": digest}


def _suffix(parts):
    return (":" + parts["tag"] if parts["tag"] else "") + ("@" + parts["digest"] if parts["digest"] else "")


def _normalise_prefix(prefix):
    prefix = str(prefix or "").strip()
    if not prefix:
        return ""
    if "://" in prefix:
        raise AnsibleFilterError("image prefix %r is not allowed: write it without a scheme, "
                                 "such as m.daocloud.io/ or mirror.example.com:5000/library/" % (prefix,))
    prefix = prefix.rstrip("/")
    host = prefix.split("/", 1)[0]
    if not _HOST.match(host) or any(ch.isspace() for ch in prefix) or "//" in prefix:
        raise AnsibleFilterError("image prefix %r is not allowed: use a registry host with an optional path, "
                                 "such as m.daocloud.io/" % (prefix,))
    return prefix + "/"


def image_rewrite(ref, to="canonical", prefix="", registry=DEFAULT_LOCAL_REGISTRY):
    """Spell ``ref`` for ``to``: canonical, mirror (``prefix`` + canonical) or local (``registry``)."""
    if to not in TARGETS:
        raise AnsibleFilterError("image_rewrite target %r is not allowed: use one of %s" % (to, ", ".join(TARGETS)))
    parts = parse_image(ref)
    canonical = "%s/%s%s" % (parts["host"], parts["path"], _suffix(parts))
    if to == "canonical":
        return canonical
    if to == "mirror":
        return _normalise_prefix(prefix) + canonical
    registry = str(registry or "").strip().rstrip("/")
    if not _HOST.match(registry):
        raise AnsibleFilterError("local registry %r is not allowed: use host:port such as localhost:5001" % (registry,))
    if parts["host"] == registry:
        return canonical
    path = parts["path"] if parts["host"] == DOCKER_HUB else parts["host"] + "/" + parts["path"]
    return "%s/%s%s" % (registry, path, _suffix(parts))
