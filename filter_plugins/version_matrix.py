# -*- coding: utf-8 -*-
"""The version_matrix filters; their logic: plugins/plugin_utils/versions/matrix.py."""
from ansible_collections.kube_sched_bench.core.plugins.plugin_utils.versions.matrix import (  # noqa: F401
    download_checksums,
    go_arch,
    has_cgroupns,
    kind_controller_manager_args,
    kind_job_syncs_problem,
    kubernetes_staging_replaces,
    python_bootstrap,
    version_set,
    version_set_problem,
)


class FilterModule:
    def filters(self):
        return {"version_set": version_set, "version_set_problem": version_set_problem, "has_cgroupns": has_cgroupns,
                "python_bootstrap": python_bootstrap, "download_checksums": download_checksums, "go_arch": go_arch,
                "kubernetes_staging_replaces": kubernetes_staging_replaces,
                "kind_controller_manager_args": kind_controller_manager_args,
                "kind_job_syncs_problem": kind_job_syncs_problem}
