# -*- coding: utf-8 -*-
"""The cluster's certificates: what to (re)issue, decided from what is on disk (pure, no I/O).

library/bench_pki.py reads the existing keys and certificates into ``found`` and
writes what ``plan`` asks for, in one module call instead of one per file.
Unit-tested in tests/unit/test_bench_pki.py.
"""
from __future__ import annotations

USAGES = ("serverAuth", "clientAuth")


def normalized(cas, certs):
    """The certificates with their defaults filled in: usage a list (default clientAuth), ca the first CA,
    org a string."""
    first = cas[0].get("name") if cas else None
    result = []
    for cert in certs:
        usage = cert.get("usage") or ["clientAuth"]
        result.append(dict(cert, usage=[usage] if isinstance(usage, str) else list(usage),
                           ca=cert.get("ca") or first, org=cert.get("org") or "", san=list(cert.get("san") or [])))
    return result


def spec_problems(cas, keys, certs):
    """Lines naming what is wrong with the module's arguments (empty: fine)."""
    problems = []
    names = [ca.get("name") for ca in cas] + list(keys) + [cert.get("name") for cert in certs]
    if any(not name or "/" in str(name) for name in names):
        problems.append("every CA, key and certificate needs a name without '/'")
    if len(set(names)) != len(names):
        problems.append("names must be unique across cas, keys and certs: %s" % ", ".join(map(str, names)))
    ca_names = {ca.get("name") for ca in cas}
    for cert in certs:
        if cert.get("ca") not in ca_names:
            problems.append("certificate %s: ca must be one of %s, not %r" % (cert.get("name"), sorted(ca_names),
                                                                              cert.get("ca")))
        unknown = [usage for usage in cert.get("usage") or [] if usage not in USAGES]
        if unknown or not cert.get("usage"):
            problems.append("certificate %s: usage must be a non-empty list of %s" % (cert.get("name"), ", ".join(USAGES)))
        bad_sans = [san for san in cert.get("san") or [] if not str(san).startswith(("IP:", "DNS:"))]
        if bad_sans:
            problems.append("certificate %s: each san must start with IP: or DNS:, not %s" % (cert.get("name"), bad_sans))
    return problems


def wanted_subject(spec):
    """What a certificate of ``spec`` must say, in the shape ``found`` reports it."""
    return {"cn": spec["cn"], "org": spec.get("org") or "", "sans": sorted(spec.get("san") or []),
            "usage": sorted(spec.get("usage") or []), "issuer": spec.get("issuer_cn", "")}


def plan(cas, keys, certs, found, min_days_left):
    """(keys to create, certificates to issue), CAs first. ``found`` is {name: {"key": bool, "cert": None or
    {cn, org, sans, usage, issuer, key_matches, days_left}}}. A certificate is issued again when it is missing,
    says something else than its spec, is not for its key, expires within ``min_days_left`` days or its CA is
    issued again; a key is created only where none is."""
    new_keys = [name for name in [ca["name"] for ca in cas] + list(keys) + [cert["name"] for cert in certs]
                if not (found.get(name) or {}).get("key")]

    def stale(name, want):
        entry = found.get(name) or {}
        cert = entry.get("cert")
        if name in new_keys or not cert or not cert.get("key_matches"):
            return True
        if (cert.get("days_left") or 0) < min_days_left:
            return True
        return {key: cert.get(key) for key in want} != want

    issue = [ca["name"] for ca in cas
             if stale(ca["name"], wanted_subject(dict(ca, usage=[], issuer_cn=ca["cn"])))]
    ca_cn = {ca["name"]: ca["cn"] for ca in cas}
    issue += [cert["name"] for cert in certs
              if cert["ca"] in issue or stale(cert["name"], wanted_subject(dict(cert, issuer_cn=ca_cn[cert["ca"]])))]
    return new_keys, issue
