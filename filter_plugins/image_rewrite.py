# -*- coding: utf-8 -*-
"""The image_rewrite filters; their logic: plugins/plugin_utils/releases/images.py."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.releases.images import (  # noqa: F401
    image_rewrite,
)


class FilterModule:
    def filters(self):
        return {"image_rewrite": image_rewrite}
