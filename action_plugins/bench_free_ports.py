# -*- coding: utf-8 -*-
"""bench_free_ports runs directly, without being packed, on a host that is the controller (module_utils/bench_direct_run.py)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils"))
from bench_direct_run import OwnModuleAction as ActionModule  # noqa: E402,F401 - module_utils is not a package here
