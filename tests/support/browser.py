"""Debian's Chromium driven by Playwright, for the tests that look at pages in a real browser."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")


CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def sync_playwright_or_fail():
    """Playwright's ``sync_playwright``, failing the test (never skipping) without a browser."""
    reason = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "the playwright package is not installed (pip install playwright)"
    if reason is None and not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing; run scripts/install-test-services.sh"
    if reason is not None:
        # The README's test command installs both; a missing browser is a failure,
        # never a silent skip.
        pytest.fail(f"browser tests cannot run: {reason}")
    return sync_playwright
