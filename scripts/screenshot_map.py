"""Screenshot a map page (e.g. ``stations.html`` of ``generate --map``) for the docs.

Usage, from the repository root (after the README's quick start with ``--explain --map``)::

    python scripts/screenshot_map.py out/sioux-falls/stations.html docs/img/stations.png

Opens the page in Debian's headless Chromium (``scripts/install-test-services.sh``) through
Playwright, with every request that is not the page itself aborted, so map tiles are not
drawn: the picture shows what the page draws by itself. The PNG is reduced to 128
colours to keep it small.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"


def screenshot(page: Path, target: Path, width: int = 1280, height: int = 760) -> int:
    """Write a PNG of ``page`` to ``target`` and return its size in bytes.

    Parameters
    ----------
    page : Path
        A self-contained HTML page that sets ``window.stationMap`` when ready
        (station maps do; other pages are shot once loaded).
    target : Path
        The PNG to write.
    width, height : int
        The browser viewport in CSS pixels.

    Returns
    -------
    int
        The PNG's size in bytes.
    """
    from PIL import Image
    from playwright.sync_api import sync_playwright

    uri = page.resolve().as_uri()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        tab = browser.new_page(viewport={"width": width, "height": height})
        tab.route("**/*", lambda r: r.continue_() if r.request.url == uri else r.abort())
        tab.goto(uri, wait_until="load")
        if tab.evaluate("'stationMap' in window"):
            tab.wait_for_function("window.stationMap !== undefined")
        tab.wait_for_timeout(500)  # let markers and the legend settle
        raw = target.with_suffix(".raw.png")
        tab.screenshot(path=str(raw))
        browser.close()
    image = Image.open(raw).convert("RGB")
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        target, optimize=True
    )
    raw.unlink()
    return target.stat().st_size


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; see the module docstring.

    Parameters
    ----------
    argv : list of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("target", type=Path)
    args = parser.parse_args(argv)
    size = screenshot(args.page, args.target)
    print(f"wrote {args.target} ({size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
