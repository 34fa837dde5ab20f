"""Shared test configuration.

Hypothesis explores new examples on every local run (that is how it finds bugs), but CI (``CI=true``) runs a fixed,
derandomized set so that a landing never depends on luck; database writes are off there (a fresh clone each time).
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
    settings.load_profile("ci")
