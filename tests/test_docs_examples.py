"""Every ``stations-generator`` example in README.md and docs/*.md runs as documented.

Examples are read from fenced code blocks:

* a line ``stations-generator …`` (or a ``… && stations-generator …`` part of one) is a
  command; a line ending in ``\\`` continues on the next;
* a line ``$ stations-generator …`` is a command whose output follows it in the same
  block, up to the next ``$`` line or the end of the block;
* a block fenced as ```` ```text ```` is output of the last command before it in the file;
* a trailing ``# exits N: why`` documents a non-zero exit code; a shown output that
  starts with ``error:`` documents a failure (exit code not 0).

The examples of one file run in order, in the same folder (a later one may read what an
earlier one wrote), through the real command line in this process, so the session's
network guard holds. That folder is a temporary one holding symbolic links to the
repository's folders; outputs must go under ``out/`` (checked), which stays in the
temporary folder. Online examples reach the local Overpass and Nominatim stand-ins of
``osm_services`` (recorded real data) through the environment variables the command line
reads, with a fresh cache.
"""

from __future__ import annotations

import re
import shlex
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.osm_services import serve
from support.paths import REPO
from support.quickstart import readme_quick_start

from stations_generator.cli import main

pytestmark = pytest.mark.slow

DOCS = (REPO / "README.md", *sorted((REPO / "docs").glob("*.md")))
PROGRAM = "stations-generator"
OUTPUT_OPTIONS = ("-o", "--output", "--output-dir", "--html")
_FENCE = re.compile(r"^(```|~~~)\s*([\w+-]*)")
_EXITS = re.compile(r"#\s*exits\s+(\d+)\b")


@dataclass
class Example:
    """One documented command."""

    doc: Path
    line: int
    command: str
    exit_code: int | None = 0  # None: documented to fail (shown output starts with error:)
    output: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line}"

    @property
    def args(self) -> list[str]:
        words = shlex.split(self.command, comments=True)
        assert words[0] == PROGRAM, self.where
        return words[1:]


def _logical_lines(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Join lines ending in a backslash with the next one."""
    out: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, text in lines:
        if pending is not None:
            number, text = pending[0], pending[1] + " " + text.strip()
            pending = None
        if text.rstrip().endswith("\\"):
            pending = (number, text.rstrip()[:-1].rstrip())
            continue
        out.append((number, text))
    if pending is not None:
        out.append(pending)
    return out


def _commands(text: str) -> list[str]:
    """The ``stations-generator`` commands of one shell line (``a && b`` gives two)."""
    return [part.strip() for part in text.split("&&") if part.strip().startswith(PROGRAM + " ")]


def _exit_code(command: str) -> int:
    match = _EXITS.search(command)
    return int(match.group(1)) if match else 0


def examples(doc: Path) -> list[Example]:
    """The documented commands of one Markdown file, with their shown output."""
    found: list[Example] = []
    lines = doc.read_text("utf-8").splitlines()
    k = 0
    while k < len(lines):
        fence = _FENCE.match(lines[k])
        if not fence:
            k += 1
            continue
        marker, language = fence.group(1), fence.group(2)
        start = k + 1
        k = start
        while k < len(lines) and not lines[k].startswith(marker):
            k += 1
        block = [(n + 1, lines[n]) for n in range(start, k)]
        k += 1
        if language == "text":
            assert found, f"{doc.name}:{start}: an output block before any command"
            found[-1].output.extend(t for _, t in block)
            continue
        current: Example | None = None
        for number, text in _logical_lines(block):
            if text.startswith("$ "):
                current = None
                for command in _commands(text[2:]):
                    current = Example(doc, number, command, _exit_code(command))
                    found.append(current)
            elif current is not None:
                current.output.append(text)
            elif not text.lstrip().startswith("#"):
                found.extend(Example(doc, number, c, _exit_code(c)) for c in _commands(text))
    for example in found:
        shown = [t for t in example.output if t.strip()]
        if shown and shown[0].startswith("error:") and not _EXITS.search(example.command):
            example.exit_code = None
    return found


def _workdir(tmp_path: Path) -> Path:
    """A folder that looks like the repository root (links) without its out/."""
    work = tmp_path / "repo"
    work.mkdir()
    for entry in REPO.iterdir():
        if entry.name.startswith(".") or entry.name == "out":
            continue
        (work / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return work


def _contains_in_order(actual: list[str], expected: list[str]) -> int:
    """How many of ``expected`` (blank lines skipped) appear in ``actual`` in order."""
    it = iter(line.rstrip() for line in actual)
    done = 0
    for line in (e.rstrip() for e in expected if e.strip()):
        if not any(a == line for a in it):
            return done
        done += 1
    return done


def test_examples_are_found():
    """The extractor sees the documented commands (and so the test below runs them)."""
    readme = examples(REPO / "README.md")
    subcommands = {" ".join(e.args[:2]) if e.args[0] in ("questions", "zones") else e.args[0]
                   for e in readme}  # fmt: skip
    assert {
        "generate",
        "map",
        "report",
        "questions apply",
        "questions answer",
        "questions cost",
        "zones check",
        "roll",
        "route",
        "calibrate",
    } <= subcommands
    quick = readme[0]
    assert quick.args[:2] == ["generate", "zones/sioux-falls.geojson"]
    # Its shown output is the README's first ```text block, summary line first.
    assert [line for line in quick.output if line.strip()] == readme_quick_start()
    assert quick.output[0].startswith("Stations: ")
    assert any(e.exit_code == 1 for e in readme)  # a documented failing zone check
    for doc in DOCS:
        assert examples(doc), f"{doc.name} has no stations-generator example"


def test_extractor_on_a_made_up_page(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```sh\n"
        "pip install . && stations-generator generate a.geojson \\\n"
        "  --osm b.json -o out/x\n"
        "stations-generator zones check g.json --station X  # exits 1: ruled out\n"
        "```\n"
        "```text\nStations: 1\n```\n"
        "```\n$ stations-generator roll A --map m.geojson\nerror: no station\n"
        "$ stations-generator cost g.json\nTotal: 3\n```\n"
        "```\nE[W] = 1\n```\n"
    )
    found = examples(page)
    assert [e.args for e in found] == [
        ["generate", "a.geojson", "--osm", "b.json", "-o", "out/x"],
        ["zones", "check", "g.json", "--station", "X"],
        ["roll", "A", "--map", "m.geojson"],
        ["cost", "g.json"],
    ]
    assert [e.exit_code for e in found] == [0, 1, None, 0]
    assert [e.output for e in found] == [[], ["Stations: 1"], ["error: no station"], ["Total: 3"]]


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_documented_commands_run(doc, tmp_path, monkeypatch):
    found = examples(doc)
    for example in found:
        args = example.args
        for option, value in zip(args, args[1:], strict=False):
            if option in OUTPUT_OPTIONS:
                assert value.startswith("out/"), f"{example.where}: write under out/, not {value}"
    work = _workdir(tmp_path)
    monkeypatch.chdir(work)
    runner = CliRunner()
    with serve() as services:
        env = {**services.env(tmp_path / "overpass-cache"), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
        for example in found:
            result = runner.invoke(main, example.args, env=env, catch_exceptions=True)
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                trace = "".join(traceback.format_exception(result.exception))
                pytest.fail(f"{example.where}: {example.command}\ncrashed:\n{trace}")
            report = (
                f"{example.where}: {example.command}\nexit {result.exit_code}:\n{result.output}"
            )
            if example.exit_code is None:
                assert result.exit_code != 0, report
            else:
                assert result.exit_code == example.exit_code, report
            actual = result.output.splitlines()
            expected = [t for t in example.output if t.strip()]
            matched = _contains_in_order(actual, expected)
            assert matched == len(expected), (
                f"{report}\ndocumented output differs from line {expected[matched]!r} on"
                if matched < len(expected)
                else report
            )
