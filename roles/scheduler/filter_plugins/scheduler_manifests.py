# -*- coding: utf-8 -*-
"""Filters that adapt a scheduler's upstream manifests to the binary runtime.

Upstream registers its admission webhooks with an in-cluster Service; on the
binary runtime the webhook server is a local process, so each webhook gets a
URL on the loopback address and the CA that signed the server's certificate.
Pure functions: unit-tested in tests/unit/test_scheduler_manifests.py.
"""
from __future__ import annotations

import copy
import re
from urllib.parse import urlsplit

import yaml
from ansible.errors import AnsibleFilterError

try:
    _LOADER = yaml.CSafeLoader
except AttributeError:  # PyYAML without libyaml
    _LOADER = yaml.SafeLoader

WEBHOOK_KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")


def manifests_of_kind(docs, kinds):
    """The documents of a multi-document YAML whose kind is in ``kinds`` (empty documents dropped)."""
    if isinstance(kinds, str):
        kinds = [kinds]
    return [doc for doc in docs or [] if isinstance(doc, dict) and doc.get("kind") in kinds]


def documents_of_kind(text, kinds):
    """The documents of a multi-document YAML text whose top-level kind is in ``kinds``, parsed.

    Only those documents are parsed: a release manifest is mostly CRDs, and
    parsing all of it to pick a few objects costs seconds.
    """
    if isinstance(kinds, str):
        kinds = [kinds]
    wanted = re.compile(r"^kind:\s*[\"']?(%s)[\"']?\s*$" % "|".join(re.escape(kind) for kind in kinds), re.MULTILINE)
    docs = []
    for chunk in re.split(r"^---[^\n]*$", str(text), flags=re.MULTILINE):
        if wanted.search(chunk):
            doc = yaml.load(chunk, Loader=_LOADER)  # noqa: S506 - a safe loader
            if isinstance(doc, dict) and doc.get("kind") in kinds:
                docs.append(doc)
    return docs


def local_webhooks(docs, base_url, ca_bundle, name_prefix=""):
    """Webhook configurations of ``docs`` pointed at ``base_url`` + each webhook's service path.

    ``ca_bundle`` is the base64 PEM of the CA that signed the local server's
    certificate. Configuration names get ``name_prefix`` unless they have it.
    The documents given are not changed.
    """
    base_url = str(base_url).rstrip("/")
    if not base_url.startswith("https://"):
        raise AnsibleFilterError("webhooks need an https:// URL, got %r" % (base_url,))
    result = []
    for doc in manifests_of_kind(docs, WEBHOOK_KINDS):
        doc = copy.deepcopy(doc)
        meta = doc.setdefault("metadata", {})
        name = meta.get("name", "")
        if name_prefix and not name.startswith(name_prefix):
            meta["name"] = name_prefix + name
        for key in ("namespace", "resourceVersion", "uid", "creationTimestamp", "annotations"):
            meta.pop(key, None)
        for hook in doc.get("webhooks") or []:
            config = hook.get("clientConfig") or {}
            if "service" in config:
                path = config["service"].get("path") or "/"
            elif "url" in config:
                path = urlsplit(config["url"]).path or "/"
            else:
                raise AnsibleFilterError("webhook %s of %s has neither a service nor a URL" % (hook.get("name"), name))
            hook["clientConfig"] = {"url": base_url + path, "caBundle": ca_bundle}
        result.append(doc)
    return result


def established_crds(resources):
    """Names of the CustomResourceDefinitions (as listed by the API) whose Established condition is True."""
    return [
        crd["metadata"]["name"] for crd in resources or []
        if any(condition.get("type") == "Established" and condition.get("status") == "True"
               for condition in (crd.get("status") or {}).get("conditions") or [])
    ]


class FilterModule:
    def filters(self):
        return {"manifests_of_kind": manifests_of_kind, "documents_of_kind": documents_of_kind, "local_webhooks": local_webhooks,
                "established_crds": established_crds}
