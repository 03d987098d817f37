# -*- coding: utf-8 -*-
"""Files and processes on a host: atomic writes, file sets, pid files, and the guard that stops what a run started."""
