# -*- coding: utf-8 -*-
"""Kubernetes resource quantities: parsed to numbers and written back. No project imports, so that anything may use
them, the scheduler modules (module_utils/schedulers/) included, whose package the rules (rules.py) import. No I/O
here."""
from __future__ import annotations

import re

_QUANTITY = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")
_SUFFIX = {
    None: 1, "m": 0.001, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
    "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60,
}


def parse_quantity(text):
    """Parse a Kubernetes resource quantity ("500m", "200Mi", "32") to a float."""
    match = _QUANTITY.match(str(text).strip())
    if not match:
        raise ValueError("not a Kubernetes quantity: %r" % (text,))
    return float(match.group(1)) * _SUFFIX[match.group(2)]


def millicores(quantity):
    """Whole millicores of a CPU quantity ("100m" -> 100, "32" -> 32000): integer arithmetic from here on."""
    return int(round(parse_quantity(quantity) * 1000))


def size_bytes(quantity):
    """Whole bytes of a memory quantity."""
    return int(round(parse_quantity(quantity)))


def format_cpu(millicores):
    """A CPU quantity from whole millicores: "3200" or "1500m"."""
    millicores = int(round(millicores))
    return "%d" % (millicores // 1000) if millicores % 1000 == 0 else "%dm" % millicores


def format_memory(size):
    """A memory quantity from bytes, with the largest binary suffix that divides it: "25Ti", "600Mi", "1234"."""
    size = int(round(size))
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        if size and size % _SUFFIX[suffix] == 0:
            return "%d%s" % (size // _SUFFIX[suffix], suffix)
    return "%d" % size
