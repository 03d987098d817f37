# -*- coding: utf-8 -*-
"""The version matrix: every pinned version set and download checksum, and which set a host gets."""
