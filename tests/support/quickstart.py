"""The README's quick start (the bundled Sioux Falls map) as the tests read it.

Tests compare what a command, page or notebook shows with what README.md documents, or
with the station map it was made from, instead of retyping counts: the one test that
pins the numbers themselves is ``tests/app/test_sioux_falls_golden.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from support.paths import REPO

README = REPO / "README.md"
_SUMMARY = re.compile(
    r"^Stations: (?P<stations>\d+) in (?P<clusters>\d+) clusters?, "
    r"from (?P<candidates>\d+) candidates"
)


@dataclass(frozen=True)
class Summary:
    """The counts of a ``Stations: …`` summary line."""

    line: str
    stations: int
    clusters: int
    candidates: int


def summary(output: str) -> Summary:
    """The first ``Stations: …`` line of a command's output (or a notebook's text), parsed."""
    for line in output.splitlines():
        match = _SUMMARY.match(line.strip())
        if match:
            counts = {k: int(v) for k, v in match.groupdict().items()}
            return Summary(line.strip(), **counts)
    raise AssertionError(f"no 'Stations: N in C clusters, from M candidates' line in:\n{output}")


def readme_quick_start() -> list[str]:
    """The output lines README.md shows for the quick start (its first ```text block)."""
    text = README.read_text("utf-8")
    match = re.search(r"^```text\n(.*?)^```", text, flags=re.S | re.M)
    assert match, "README.md has no ```text block"
    lines = [line for line in match.group(1).splitlines() if line.strip()]
    assert lines and lines[0].startswith("Stations: "), lines
    return lines


def readme_line(prefix: str) -> str:
    """The quick start's output line starting with ``prefix``."""
    (line,) = [line for line in readme_quick_start() if line.startswith(prefix)]
    return line


def readme_summary() -> Summary:
    """The quick start's ``Stations: …`` line, parsed."""
    return summary(readme_quick_start()[0])
