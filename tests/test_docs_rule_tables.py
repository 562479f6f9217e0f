"""The rule tables in docs/ point at tests that exist.

A row of a rule table names the test that checks the rule, as ``test_file.py::test_name``
(later names in the same cell may shorten it to ``::test_name``). Every name must be a test
function of that file under ``tests/``, so a table cannot promise a test that was renamed
or removed.
"""

from __future__ import annotations

import ast
import functools
import re

import pytest
from support.paths import REPO

DOCS = sorted((REPO / "docs").glob("*.md"))
TEST_REF = re.compile(r"`(?:[\w/]*?(test_\w+\.py))?::(test_\w+)`")


@functools.cache
def _test_functions() -> dict[str, set[str]]:
    """Test file basename -> the names of its test functions (basenames are unique)."""
    found: dict[str, set[str]] = {}
    for path in (REPO / "tests").rglob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        assert path.name not in found, f"two test files named {path.name}"
        found[path.name] = names
    return found


def _references() -> list[tuple[str, int, str, str]]:
    """(doc, line number, test file, test name) of every test a table row names."""
    refs = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            if not line.startswith("|"):
                continue
            for cell in line.split("|"):
                current = None
                for match in TEST_REF.finditer(cell):
                    current = match.group(1) or current
                    assert current, f"{doc.name}:{number}: `::{match.group(2)}` names no file"
                    refs.append((doc.name, number, current, match.group(2)))
    return refs


def test_rule_tables_name_tests():
    assert len(_references()) >= 20  # the question rules alone name more


@pytest.mark.parametrize("doc, line, file, name", _references())
def test_named_test_exists(doc, line, file, name):
    tests = _test_functions()
    assert file in tests, f"{doc}:{line}: no test file {file}"
    assert name in tests[file], f"{doc}:{line}: {file} has no test {name}"


HOUSE_RULES = REPO / "docs" / "house-rules.md"
COUNTS = re.compile(r"\*\*(\d+) rules: (\d+) done, (\d+) partly, (\d+) left\.\*\*")
LINK = re.compile(r"\]\(([\w.-]+\.md)(?:#([\w-]+))?\)")


def _house_rules() -> list[list[str]]:
    """The rows of docs/house-rules.md's tables: [rule, section, status, where]."""
    rows = []
    for line in HOUSE_RULES.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and cells[0] not in ("rule", "---"):
            rows.append(cells)
    return rows


def _anchors(doc: str) -> set[str]:
    """GitHub's anchors of a doc's headings."""
    text = (REPO / "docs" / doc).read_text(encoding="utf-8")
    heads = re.findall(r"^#+ (.+)$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in heads}


def test_house_rules_counts_match_their_rows():
    rows = _house_rules()
    statuses = [row[2] for row in rows]
    assert set(statuses) <= {"done", "partly", "left"}, set(statuses)
    found = COUNTS.search(HOUSE_RULES.read_text(encoding="utf-8"))
    assert found, "the summary line of counts is missing"
    total, done, partly, left = map(int, found.groups())
    assert (total, done, partly, left) == (
        len(rows),
        statuses.count("done"),
        statuses.count("partly"),
        statuses.count("left"),
    )


def test_every_house_rule_says_where_or_why():
    for rule, section, status, where in _house_rules():
        assert section, rule
        if status == "done":
            assert LINK.search(where), f"done, but no link to where: {rule}"
        else:
            assert len(where) > 20, f"{status}, but no reason: {rule}"
        for doc, anchor in LINK.findall(where):
            assert (REPO / "docs" / doc).is_file(), f"{rule}: no docs/{doc}"
            if anchor:
                assert anchor in _anchors(doc), f"{rule}: no heading #{anchor} in {doc}"
