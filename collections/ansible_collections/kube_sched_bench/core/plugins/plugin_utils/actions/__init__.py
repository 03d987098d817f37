# -*- coding: utf-8 -*-
"""How the project's actions run on the controller: a module run directly on a local host (direct_run), and an
action whose whole work is the controller's (controller_task)."""
