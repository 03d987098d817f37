# -*- coding: utf-8 -*-
"""The report: a run read (run), built (build, blocks, scenarios), gated (gate), rendered (render), the action's
work (task); the run's phases (phases) and the upstream matrix (matrix)."""
