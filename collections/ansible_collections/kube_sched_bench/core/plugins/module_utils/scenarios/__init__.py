# -*- coding: utf-8 -*-
"""Scenarios: the file and its expansion (spec), per-job records, metrics and findings (the load test creates their
other objects: loadtest/scenario_objects.py).

- spec.py: a scenario by name or path (``load``, ``locate``, ``problems_of``, ``shipped_names``), and the public
  names of checks.py and expansion.py that other code imports from it
- checks.py: the file's fields and rules, the YAML reader that keeps lines, and the checks (``check_file``)
- expansion.py: a scenario scaled (``scaled``), expanded into jobs (``expand``), and the seed's burst (``burst``)
- records.py: a scenario run's per-job and per-pod records, and what summary.json says of it
- metrics.py: what a scenario measures from those records
- findings.py: the promises (thresholds) a scheduler broke
"""
