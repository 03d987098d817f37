# -*- coding: utf-8 -*-
"""bench_files runs directly, without being packed, on a host that is the controller (module_utils/bench_direct_run.py)."""

