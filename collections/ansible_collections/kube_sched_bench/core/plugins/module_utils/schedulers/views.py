# -*- coding: utf-8 -*-
"""The views of a process's metrics that the schedulers' descriptors share (their ``internals``): every build of
kube-scheduler and every controller-runtime manager is read the same way. What a view is, and how it is read:
metrics/internals.py. ``unit_ms`` turns a histogram's unit into milliseconds. No I/O here."""
from __future__ import annotations

SECONDS, MILLISECONDS, MICROSECONDS = 1000.0, 1.0, 0.001

# A build of kube-scheduler (the default scheduler, a queue's binder, a plugin build): attempts by result, the
# attempt's duration, and where the time went by extension point and by plugin (upstream samples the plugins'
# durations, so their counts are a share of the attempts).
KUBE_SCHEDULER = [
    {"key": "attempts", "view": "counts", "metric": "scheduler_schedule_attempts_total", "label": "result"},
    {"key": "attempt_duration", "view": "histogram", "metric": "scheduler_scheduling_attempt_duration_seconds",
     "unit_ms": SECONDS},
    {"key": "busiest_extension_points", "view": "busiest", "label": "extension_point", "unit_ms": SECONDS,
     "metric": "scheduler_framework_extension_point_duration_seconds", "top": 5},
    {"key": "busiest_plugins", "view": "busiest", "metric": "scheduler_plugin_execution_duration_seconds",
     "label": "plugin", "unit_ms": SECONDS, "top": 5},
]
# A controller-runtime manager (a queueing scheduler's, a plugin build's controller): its reconciles by controller.
CONTROLLER_RUNTIME = [
    {"key": "reconciles", "view": "counts", "metric": "controller_runtime_reconcile_total", "label": "controller",
     "top": 6},
    {"key": "busiest_controllers", "view": "busiest", "metric": "controller_runtime_reconcile_time_seconds",
     "label": "controller", "unit_ms": SECONDS, "top": 5},
]
