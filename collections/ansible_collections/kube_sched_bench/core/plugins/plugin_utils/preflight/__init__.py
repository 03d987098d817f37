# -*- coding: utf-8 -*-
"""What a host must have before a run starts on it: the disk space the run writes, by file system."""
