# -*- coding: utf-8 -*-
"""The load test on a host: the workload's objects, the API client, the generator's processes, the held backlog,
capacity, calibration and progress."""
