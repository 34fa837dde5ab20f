"""The toolchains bots for the ICGA framework were written with (C, C++, Java), for the tests that compile such a
bot.  Where one is missing the test is skipped; under ``MJREF_REQUIRE_TOOLCHAINS=1`` (``.ci/run`` installs them and
sets it) it fails instead, so that CI can never pass by skipping them."""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRE_ENV = "MJREF_REQUIRE_TOOLCHAINS"


def find(*names: str) -> str | None:
    """The path of the first of ``names`` on PATH; None (or, when required, a failed test) if there is none."""
    for name in names:
        if (found := shutil.which(name)) is not None:
            return found
    if os.environ.get(REQUIRE_ENV, "") not in ("", "0"):
        pytest.fail(f"the toolchain tests are required here ({REQUIRE_ENV}) but there is no {' or '.join(names)}")
    return None


def tool(*names: str) -> str:
    """The path of the first of ``names`` on PATH, or the test is skipped (failed, when required)."""
    found = find(*names)
    if found is None:
        pytest.skip(f"no {' or '.join(names)} on this machine")
    return found
