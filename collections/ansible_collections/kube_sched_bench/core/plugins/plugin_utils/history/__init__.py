# -*- coding: utf-8 -*-
"""The history of a results directory (load), its page and table (render), and the action's work (task)."""
