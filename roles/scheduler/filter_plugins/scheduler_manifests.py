# -*- coding: utf-8 -*-
"""The scheduler_manifests filters; their logic: plugins/plugin_utils/releases/manifests.py."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.releases.manifests import (  # noqa: F401
    chart_release,
    controller_cpu,
    controller_knobs,
    cpu_problem,
    documents_of_kind,
    established_crds,
    is_ready,
    kind_release,
    local_webhooks,
    manifests_of_kind,
    not_ready,
    readiness_targets,
    release_images,
    release_manifest_url,
    release_url_problem,
    rewrite_images,
)


class FilterModule:
    def filters(self):
        return {"manifests_of_kind": manifests_of_kind, "documents_of_kind": documents_of_kind, "local_webhooks": local_webhooks,
                "established_crds": established_crds, "release_manifest_url": release_manifest_url,
                "release_url_problem": release_url_problem, "cpu_problem": cpu_problem, "release_images": release_images,
                "rewrite_images": rewrite_images, "controller_cpu": controller_cpu, "controller_knobs": controller_knobs,
                "readiness_targets": readiness_targets,
                "kind_release": kind_release, "chart_release": chart_release, "is_ready": is_ready,
                "not_ready": not_ready}
