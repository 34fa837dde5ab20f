"""Headless Chromium for the page tests, driven by Playwright's Python package (no ``playwright install``).

The browser is Debian's ``chromium`` (``apt-get install -y chromium``; or ``MJREF_CHROMIUM=/path``).  On a developer
machine without it, or without the ``playwright`` package, the browser tests skip and say which is missing; with
``MJREF_REQUIRE_BROWSER=1`` (CI sets it) they fail instead, so CI can never pass by skipping them.

Every page is opened with a request log: :func:`open_page` records each request the page makes, so a test can
assert that a self-contained page asks for nothing but itself.  Screenshots go to ``test-artifacts/`` (git-ignored)
or ``MJREF_ARTIFACTS``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[1]


def chromium_path() -> str | None:
    env = os.environ.get("MJREF_CHROMIUM")
    if env:
        return env if Path(env).exists() else None
    for candidate in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if Path(candidate).exists():
            return candidate
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing() -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install 'mjref[browser]')"
    if chromium_path() is None:
        return "no chromium executable (apt-get install -y chromium, or set MJREF_CHROMIUM)"
    return None


def require_browser() -> None:
    """Skip (or, with MJREF_REQUIRE_BROWSER=1, fail) when the browser tests cannot run."""
    why = missing()
    if why is None:
        return
    if os.environ.get("MJREF_REQUIRE_BROWSER", "") not in ("", "0"):
        pytest.fail(f"browser tests are required here (MJREF_REQUIRE_BROWSER) but {why}")
    pytest.skip(f"browser tests skipped: {why}")


def artifacts_dir() -> Path:
    d = Path(os.environ.get("MJREF_ARTIFACTS") or ROOT / "test-artifacts")
    d.mkdir(parents=True, exist_ok=True)
    return d


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (a Playwright ``Browser``)."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class OpenPage:
    page: Any
    url: str
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def foreign_requests(self) -> list[str]:
        """Requests other than the page's own file (data: URLs are inline, not requests that leave the page)."""
        return [u for u in self.requests if u.split("#")[0] != self.url and not u.startswith("data:")]


@contextmanager
def open_page(browser: Any, path: Path, *, width: int = 1500, height: int = 1000) -> Iterator[OpenPage]:
    """Open a file from disk; record every request and every page error (JS exceptions, console errors)."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    url = path.resolve().as_uri()
    opened = OpenPage(page, url)
    page.on("request", lambda r: opened.requests.append(r.url))
    page.on("pageerror", lambda e: opened.errors.append(str(e)))
    page.on("console", lambda m: opened.errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(url)
        yield opened
    finally:
        context.close()


def screenshot(page: Any, name: str, *, full_page: bool = True) -> Path:
    out = artifacts_dir() / name
    page.screenshot(path=str(out), full_page=full_page)
    return out
