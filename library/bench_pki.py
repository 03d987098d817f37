#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: the cluster's keys, CAs and certificates in one call."""
from __future__ import annotations

DOCUMENTATION = r"""
---
module: bench_pki
short_description: Create a cluster's private keys, CAs and signed certificates in one call
description:
  - Creates an ECDSA P-256 key per CA, key and certificate in O(dir) (mode 0600) where none is, a self-signed
    certificate per CA and a certificate per entry of O(certs) signed by its CA (mode 0644).
  - Keeps what is there when it matches; a certificate is issued again only when it is missing, says something
    else than asked, is not for its key, expires within a day, or its CA was issued again.
version_added: "0.1.0"
options:
  dir:
    description: Directory of the files (<name>.key, <name>.crt); it, and the directory holding it, are created 0700 where missing.
    type: path
    required: true
  cas:
    description: The CAs, each C(name) and C(cn).
    type: list
    elements: dict
    required: true
  keys:
    description: Names that only need a key (a service-account signing key).
    type: list
    elements: str
    default: []
  certs:
    description: >-
      Certificates, each C(name), C(cn), optional C(ca) (a CA's name; default the first of O(cas)),
      C(usage) (serverAuth, clientAuth or a list of them; default clientAuth), C(org) and C(san) (IP:... or DNS:...).
    type: list
    elements: dict
    default: []
  days: {description: Days each certificate is valid., type: int, default: 365}
requirements: [cryptography]
author:
  - kube-sched-bench maintainers
"""

EXAMPLES = r"""
- name: Create the certificates
  bench_pki:
    dir: /tmp/pki
    cas: [{name: ca, cn: my-ca}]
    certs: [{name: admin, cn: admin, org: "system:masters", ca: ca, usage: [clientAuth]}]
"""

RETURN = r"""
issued: {description: Certificates issued by this call., returned: success, type: list, elements: str}
keys_created: {description: Keys created by this call., returned: success, type: list, elements: str}
"""

import datetime  # noqa: E402
import ipaddress  # noqa: E402
import os  # noqa: E402
import traceback  # noqa: E402

from ansible.module_utils.basic import AnsibleModule, missing_required_lib  # noqa: E402
from ansible_collections.kube_sched_bench.core.plugins.module_utils.cluster.pki_plan import normalized, plan, spec_problems
from ansible_collections.kube_sched_bench.core.plugins.module_utils.host.atomic import write_atomically

try:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    HAS_CRYPTOGRAPHY, CRYPTOGRAPHY_ERROR = True, None
except ImportError:
    HAS_CRYPTOGRAPHY, CRYPTOGRAPHY_ERROR = False, traceback.format_exc()

MIN_DAYS_LEFT = 1


def usage_oid(name):
    return {"serverAuth": ExtendedKeyUsageOID.SERVER_AUTH, "clientAuth": ExtendedKeyUsageOID.CLIENT_AUTH}[name]


def usage_name(oid):
    return {ExtendedKeyUsageOID.SERVER_AUTH: "serverAuth", ExtendedKeyUsageOID.CLIENT_AUTH: "clientAuth"}.get(oid, "?")


def read_key(path):
    try:
        with open(path, "rb") as handle:
            return serialization.load_pem_private_key(handle.read(), password=None)
    except (OSError, ValueError, TypeError):
        return None


def describe(path, key):
    """What the certificate at ``path`` says, in bench_pki.plan's shape; None when it is unreadable."""
    try:
        with open(path, "rb") as handle:
            cert = x509.load_pem_x509_certificate(handle.read())
    except (OSError, ValueError):
        return None

    def first(name, oid):
        values = name.get_attributes_for_oid(oid)
        return str(values[0].value) if values else ""

    try:
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        san_list = ["DNS:" + name for name in sans.get_values_for_type(x509.DNSName)] + \
                   ["IP:" + str(ip) for ip in sans.get_values_for_type(x509.IPAddress)]
    except x509.ExtensionNotFound:
        san_list = []
    try:
        usage = [usage_name(oid) for oid in cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value]
    except x509.ExtensionNotFound:
        usage = []
    public = serialization.PublicFormat.SubjectPublicKeyInfo
    matches = key is not None and cert.public_key().public_bytes(serialization.Encoding.PEM, public) == \
        key.public_key().public_bytes(serialization.Encoding.PEM, public)
    left = cert.not_valid_after_utc - datetime.datetime.now(datetime.timezone.utc)
    return {"cn": first(cert.subject, NameOID.COMMON_NAME), "org": first(cert.subject, NameOID.ORGANIZATION_NAME),
            "sans": sorted(san_list), "usage": sorted(usage), "issuer": first(cert.issuer, NameOID.COMMON_NAME),
            "key_matches": matches, "days_left": left.days}


def subject(cn, org=""):
    attributes = [x509.NameAttribute(NameOID.COMMON_NAME, cn)]
    if org:
        attributes.insert(0, x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
    return x509.Name(attributes)


def san_entry(text):
    kind, value = text.split(":", 1)
    return x509.IPAddress(ipaddress.ip_address(value)) if kind == "IP" else x509.DNSName(value)


def build(spec, key, issuer_name, issuer_key, days, is_ca):
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(subject(spec["cn"], spec.get("org") or ""))
               .issuer_name(issuer_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=days))
               .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False))
    if is_ca:
        builder = (builder.add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                                data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                                crl_sign=True, encipher_only=False, decipher_only=False), critical=True))
    else:
        builder = (builder.add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False,
                                                        key_encipherment=True, data_encipherment=False,
                                                        key_agreement=False, key_cert_sign=False, crl_sign=False,
                                                        encipher_only=False, decipher_only=False), critical=False)
                   .add_extension(x509.ExtendedKeyUsage([usage_oid(usage) for usage in spec["usage"]]), critical=False)
                   .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
                                  critical=False))
        if spec.get("san"):
            builder = builder.add_extension(x509.SubjectAlternativeName([san_entry(san) for san in spec["san"]]),
                                            critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def main():
    module = AnsibleModule(argument_spec=dict(
        dir=dict(type="path", required=True),
        cas=dict(type="list", elements="dict", required=True),
        keys=dict(type="list", elements="str", default=[], no_log=False),
        certs=dict(type="list", elements="dict", default=[]),
        days=dict(type="int", default=365),
    ), supports_check_mode=True)
    if not HAS_CRYPTOGRAPHY:
        module.fail_json(msg=missing_required_lib("cryptography"), exception=CRYPTOGRAPHY_ERROR)
    directory, cas, keys = (module.params[name] for name in ("dir", "cas", "keys"))
    certs = normalized(cas, module.params["certs"])
    problems = spec_problems(cas, keys, certs)
    if problems:
        module.fail_json(msg="bench_pki: " + problems[0])

    path = {name: os.path.join(directory, name) for name in
            [ca["name"] for ca in cas] + list(keys) + [cert["name"] for cert in certs]}
    loaded = {name: read_key(base + ".key") for name, base in path.items()}
    found = {name: {"key": loaded[name] is not None,
                    "cert": describe(path[name] + ".crt", loaded[name]) if name not in keys else None}
             for name in path}
    new_keys, issue = plan(cas, keys, certs, found, MIN_DAYS_LEFT)
    if module.check_mode or not (new_keys or issue):
        module.exit_json(changed=bool(new_keys or issue), issued=issue, keys_created=new_keys)

    # Private, and so is the directory that holds it when this call creates it (a cluster's).
    for private in (os.path.dirname(directory.rstrip(os.sep)), directory):
        os.makedirs(private, mode=0o700, exist_ok=True)
    for name in new_keys:
        loaded[name] = ec.generate_private_key(ec.SECP256R1())
        write_atomically(path[name] + ".key", loaded[name].private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption()), 0o600)
    issued_ca = {}
    for ca in cas:
        if ca["name"] in issue:
            issued_ca[ca["name"]] = build(ca, loaded[ca["name"]], subject(ca["cn"]), loaded[ca["name"]],
                                          module.params["days"], True)
            write_atomically(path[ca["name"]] + ".crt", issued_ca[ca["name"]].public_bytes(serialization.Encoding.PEM), 0o644)
    for cert in certs:
        if cert["name"] in issue:
            signed = build(cert, loaded[cert["name"]], subject(next(ca["cn"] for ca in cas if ca["name"] == cert["ca"])),
                           loaded[cert["ca"]], module.params["days"], False)
            write_atomically(path[cert["name"]] + ".crt", signed.public_bytes(serialization.Encoding.PEM), 0o644)
    module.exit_json(changed=True, issued=issue, keys_created=new_keys)


if __name__ == "__main__":
    main()
