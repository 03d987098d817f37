# -*- coding: utf-8 -*-
"""The scenario file's own kinds of rule, beside module_utils/knobs/rules.py's COUNT, POSITIVE, SECONDS and QUANTITY:
(a check of the value, or a Python type, and what is allowed, as the second half of a sentence). No I/O here.
"""
from __future__ import annotations

import re

from ansible_collections.kube_sched_bench.core.plugins.module_utils.metrics.audit import POD_FIELDS

# pods.csv: the pod's columns (metrics/audit.py's POD_FIELDS), how it ended and its job's tenant and priority
# (docs/metrics.md#podscsv); a topology level's column goes after node, so no level may take one of these names.
SCENARIO_POD_FIELDS = POD_FIELDS + ["ended", "how_ended", "tenant", "priority", "completed", "held_created"]
_NAME = re.compile(r"^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$")
MAX_PRIORITY = 1_000_000_000  # the highest value of a user PriorityClass


def _is_text(value):
    return isinstance(value, str) and bool(value.strip())


def _is_name(value):
    return isinstance(value, str) and bool(_NAME.match(value))


def _is_flag(value):
    return isinstance(value, bool)


def _is_fraction(value):
    return not isinstance(value, bool) and isinstance(value, (int, float)) and 0 <= value <= 1


def _is_priority(value):
    return not isinstance(value, bool) and isinstance(value, int) and 0 <= value <= MAX_PRIORITY


TEXT = (_is_text, "use a sentence")
NAME = (_is_name, "use lower-case letters, digits and '-', starting with a letter, at most 40 characters")
FLAG = (_is_flag, "use true or false")
FRACTION = (_is_fraction, "use a number from 0 to 1")
PRIORITY = (_is_priority, "use a whole number from 0 to %d (a PriorityClass value)" % MAX_PRIORITY)
SEED = (int, "use a whole number, 0 or more")
GPUS = (int, "use a whole number of GPUs, 0 or more")
