# -*- coding: utf-8 -*-
"""An action whose whole work is on the controller (the report, the history): its options checked by an argument
spec, its work one function of the options and check mode, run in the worker itself. Its module file in library/
holds only the documentation, as Ansible's own controller-side actions do."""
from __future__ import annotations

from ansible.plugins.action import ActionBase


class TaskError(Exception):
    """A failure of the work, with the sentence the task fails with and, where one helps, a traceback."""

    def __init__(self, msg, detail=None):
        super().__init__(msg)
        self.detail = detail


class ControllerAction(ActionBase):
    """Subclasses set ARGUMENT_SPEC and work(params, check_mode) -> result dict, raising TaskError."""

    _supports_check_mode = True
    ARGUMENT_SPEC = {}

    @staticmethod
    def work(params, check_mode):
        raise NotImplementedError

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, params = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)
        try:
            result.update(self.work(dict(params), bool(self._task.check_mode)))
        except TaskError as exc:
            result.update(failed=True, msg=str(exc))
            if exc.detail:
                result["exception"] = exc.detail
        return result
