# -*- coding: utf-8 -*-
"""What is measured: pod timing from the audit log (audit), the scheduler's and the host's CPU (cost, host_load),
and the statistics over repeats (stats)."""
