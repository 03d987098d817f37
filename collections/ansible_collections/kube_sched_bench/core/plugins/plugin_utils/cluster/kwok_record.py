# -*- coding: utf-8 -*-
"""What kwok does for the fake nodes, as env.json's ``fake_nodes`` records it (docs/metrics.md, "env.json"): read
from the configuration kwok runs with (roles/binary_cluster/templates/kwok-stages.yaml.j2, the same for every
scheduler and runtime), kwok's own defaults filled in where the configuration leaves them.

kwok v0.6's behaviour, from its source (pkg/apis/config/v1alpha1, pkg/kwok/controllers): a node's lease, when
nodeLeaseDurationSeconds is not 0, is renewed every quarter of it, and each renewal lists the node's pods again; the
stages play with 4 workers each for pods and nodes; its client has no rate limit (an always-allow rate limiter); a
node's status is written only by the stages given (here: made Ready once, then a heartbeat stage, and no lease).
A stage's delay is delay_ms, or a time drawn between delay_ms and jitter_ms when jitter_ms is given."""
from __future__ import annotations

import yaml

# kwok's defaults for the options the configuration may leave out (zz_generated.defaults.go). kwok v0.6.1 was seen to
# keep no lease at all when its configuration file left nodeLeaseDurationSeconds out: ours sets it (0).
OPTION_DEFAULTS = {"nodeLeaseDurationSeconds": 40, "nodeLeaseParallelism": 4, "podPlayStageParallelism": 4,
                   "nodePlayStageParallelism": 4}
CLIENT_RATE = "unlimited (kwok's client has an always-allow rate limiter)"


def _stage(document):
    spec = document.get("spec") or {}
    delay = spec.get("delay") or {}
    from_ = (delay.get("durationFrom") or {}).get("expressionFrom")
    return {"name": document["metadata"]["name"], "resource": (spec.get("resourceRef") or {}).get("kind"),
            "delay_ms": delay.get("durationMilliseconds", 0), "jitter_ms": delay.get("jitterDurationMilliseconds"),
            "delay_from": from_,
            "deletes": bool((spec.get("next") or {}).get("delete"))}


def kwok_record(config_text):
    """env.json's ``fake_nodes`` from kwok's configuration (the rendered YAML documents)."""
    documents = [document for document in yaml.safe_load_all(config_text) if document]
    stages = [_stage(document) for document in documents if document.get("kind") == "Stage"]
    options = dict(OPTION_DEFAULTS)
    for document in documents:
        if document.get("kind") == "KwokConfiguration":
            options.update({key: value for key, value in (document.get("options") or {}).items()
                            if key in OPTION_DEFAULTS})
    lease_s = options["nodeLeaseDurationSeconds"]
    return {
        "stages": stages,
        "node_status_writes": [stage["name"] for stage in stages if stage["resource"] == "Node"],
        "node_lease_duration_s": lease_s,
        "node_lease_renew_s": lease_s / 4.0 if lease_s else None,
        "node_lease_parallelism": options["nodeLeaseParallelism"],
        "pod_stage_parallelism": options["podPlayStageParallelism"],
        "node_stage_parallelism": options["nodePlayStageParallelism"],
        "client_rate": CLIENT_RATE,
    }
