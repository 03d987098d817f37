# -*- coding: utf-8 -*-
"""The load test on a host: the workload's objects, the API client, the generator's processes, the held backlog,
calibration, progress and summary.json.

- load.py: ``LoadTest``, one load test from the module's parameters, its submission (``open_loop``) and its run
- fake_cluster.py: its namespace, fake nodes, scenario objects and clean-up, and ``LoadTestError``
- scenario_objects.py: a scenario's objects besides its jobs (PriorityClasses, queues), created and deleted
- pod_wait.py: its waits on the watch of the pods (every pod bound or done, the held backlog whole)
- results.py: what it measured, the host's load, and the result files (``write_files``)
- client.py: thin helpers over the Python kubernetes client (the API client, the pod watch, the rate limit)
- workloads.py: the objects a load test creates (on module_utils/objects/builders.py), and the checks of its options
- submitters.py: the load generator's jobs created by several processes
- hold.py: the held backlog (bench_arrival=backlog)
- calibration.py: the host's calibration probes and the share of its ceilings
- progress.py: the progress file of a running load test
"""
