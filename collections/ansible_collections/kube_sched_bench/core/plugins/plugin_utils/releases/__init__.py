# -*- coding: utf-8 -*-
"""The kind runtime's releases: image references rewritten for the local registry (images), upstream manifests
adapted and checked (manifests)."""
