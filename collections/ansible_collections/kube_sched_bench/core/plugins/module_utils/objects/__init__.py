# -*- coding: utf-8 -*-
"""The Kubernetes objects the toolkit makes, below every package that makes or reads them: the generic builders
(builders), with our labels, annotations and markers. Knows no scheduler."""
