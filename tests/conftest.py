"""Shared test configuration.

Hypothesis explores new examples on every local run (that is how it finds bugs), but CI (``CI=true``) runs a fixed,
derandomized set so that a landing never depends on luck; database writes are off there (a fresh clone each time).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# No test may fail for being slow (speed is measured by bench/, never asserted): hypothesis's per-example deadline
# and its "too slow" health check are timings, and they trip on a loaded machine or under pytest-xdist.
_untimed = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("dev", **_untimed)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, **_untimed)
settings.load_profile("ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev")
