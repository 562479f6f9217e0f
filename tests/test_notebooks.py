"""The notebooks in notebooks/ run top to bottom, offline, and show what they say.

Each notebook is executed with nbclient in a fresh kernel (``python3``, this
interpreter's ipykernel) whose working directory is notebooks/, as Jupyter would open
it. Before the first cell the kernel gets the same network guard as this test session
(``conftest.py``): a cell that reached past 127.0.0.1 would fail. A failing cell fails
the test with its traceback. The committed files must carry no outputs
(``scripts/strip_notebooks.py``).
"""

from __future__ import annotations

import html
import json
import re
import sys

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from support.paths import REPO
from support.quickstart import readme_line, readme_summary

sys.path.insert(0, str(REPO / "scripts"))
from strip_notebooks import stripped_text  # noqa: E402

NOTEBOOKS = REPO / "notebooks"
NAMES = ("check_hiding_zone", "generate_play_area")
TIMEOUT_S = 600  # per cell; a hung cell fails instead of blocking CI

GUARD = """\
import sys
assert sys.prefix == {prefix!r}, f"kernel runs {{sys.executable}}, not the test's interpreter"
sys.path.insert(0, {tests!r})
from support import network as _network
sys.path.pop(0)
_network.block()
del _network
"""


def test_every_notebook_is_tested():
    assert sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_notebooks_use_only_the_public_api(name):
    """Every use of stations_generator is a name of its public API (issue 13)."""
    import ast

    import stations_generator

    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    tree = ast.parse(code)
    aliases, used = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "stations_generator":
                    assert a.name == "stations_generator", f"imports the submodule {a.name}"
                    aliases.add(a.asname or a.name)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("stations_"):
            assert node.module == "stations_generator", f"imports from {node.module}"
            used += [a.name for a in node.names]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in aliases:
                used.append(node.attr)
    assert aliases or used, "the notebook does not use the package"
    public = set(stations_generator.__all__)
    assert [n for n in used if n not in public] == []
    assert used, "no public name used"


@pytest.mark.parametrize("name", NAMES)
def test_committed_without_outputs(name):
    path = NOTEBOOKS / f"{name}.ipynb"
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    assert all(c.outputs == [] and c.execution_count is None for c in code)
    # Byte for byte what the strip script writes: run `python scripts/strip_notebooks.py`.
    assert path.read_text("utf-8") == stripped_text(path)


def _run(name: str, probe: str | None = None) -> tuple[nbformat.NotebookNode, str]:
    """Execute a notebook; ``probe`` is run after its last cell and its stdout returned."""
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    guard = nbformat.v4.new_code_cell(
        GUARD.format(prefix=sys.prefix, tests=str(REPO / "tests")), id="network-guard"
    )
    nb.cells.insert(0, guard)
    if probe is not None:
        nb.cells.append(nbformat.v4.new_code_cell(probe, id="test-probe"))
    client = NotebookClient(
        nb,
        timeout=TIMEOUT_S,
        kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    try:
        client.execute()
    except CellExecutionError as exc:
        pytest.fail(f"{name}.ipynb: a cell failed:\n{exc}")
    nb.cells.pop(0)
    probed = ""
    if probe is not None:
        probed = "".join(o.text for o in nb.cells.pop().outputs if o.output_type == "stream")
    return nb, probed


def _text(nb: nbformat.NotebookNode) -> str:
    """Everything the cells printed (stdout) and returned as plain text, in order."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif out.output_type in ("execute_result", "display_data"):
                parts.append(out.data.get("text/plain", ""))
    return "\n".join(parts)


def _outputs(nb: nbformat.NotebookNode, mime: str) -> list[str]:
    return [
        out.data[mime]
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out.output_type in ("execute_result", "display_data") and mime in out.data
    ]


def _maps(nb: nbformat.NotebookNode) -> list[str]:
    """The inline maps: self-contained pages in an iframe's srcdoc, unescaped."""
    pages = re.findall(r'<iframe srcdoc="([^"]*)"', "".join(_outputs(nb, "text/html")))
    return [html.unescape(p) for p in pages]


def _ran_cleanly(nb: nbformat.NotebookNode) -> None:
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)
    outputs = [o for c in code for o in c.outputs]
    assert [o for o in outputs if o.output_type == "error"] == []
    # No warning went to stderr (a deprecation in a cell would show up here).
    assert [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"] == []


@pytest.fixture(scope="module")
def check_hiding_zone() -> nbformat.NotebookNode:
    nb, _ = _run("check_hiding_zone")
    return nb


@pytest.fixture(scope="module")
def generate_play_area() -> tuple[nbformat.NotebookNode, dict]:
    nb, probed = _run(
        "generate_play_area",
        'import json; print(json.dumps({"sweep": sweep.to_dict("records"), '
        '"stations": len(result.stations), "cap": result.rules.max_per_cluster, '
        '"elements": len(osm.data.elements), "water": len(osm.data.water), '
        '"candidates": len(candidates)}))',
    )
    return nb, json.loads(probed)


@pytest.mark.slow
def test_check_hiding_zone(check_hiding_zone):
    nb = check_hiding_zone
    _ran_cleanly(nb)
    text = _text(nb)
    assert "rules official, game size S, hiding radius 402.336 m" in text
    assert "30 hiding stations, 7 questions:" in text
    # The remaining area and the zones still possible after each question, on a map each.
    for line in (
        "after question 1 (Radius 1 km: within): 1.3260 km² left, 30 of 30 hiding zones possible",
        "after question 2 (Thermometer 400 m: hotter): 0.4900 km² left, 30 of 30 hiding zones possible",
        "after question 3 (Matching nearest library: same): 0.3429 km² left, 27 of 30 hiding zones possible",
        "after question 5 (Measuring coastline: closer): 0.1085 km² left, 21 of 30 hiding zones possible",
        "after question 6 (Matching transit line: same): 0.1085 km² left, 14 of 30 hiding zones possible",
        "after question 7 (Radius 500 m: within): 0.1085 km² left, 14 of 30 hiding zones possible",
    ):
        assert line in text
    layers = [
        "1. Radius 1 km: within",
        "2. Thermometer 400 m: hotter",
        "3. Matching nearest library: same",
        "4. Tentacles museum 2 km: nearest Päivälehden museo",
        "5. Measuring coastline: closer",
        "6. Matching transit line: same",
        "7. Radius 500 m: within",
    ]
    maps = _maps(nb)
    assert len(maps) == 7
    for k, page in enumerate(maps, 1):
        assert "Remaining area" in page and "Possible hiding zones" in page
        # The map after question k has a layer for each question so far, and no other.
        assert [layer in page for layer in layers] == [i < k for i in range(7)]
        assert not re.search(r"<script[^>]*\bsrc=|<link\b", page)  # works offline
    # Zone checks name the question that rules the zone out.
    assert (
        "Rautatientori (node/418089207): not valid\n"
        "  ruled out by question 5 (Measuring coastline): answered closer, "
        "this zone would need further\n"
    ) in text
    assert "Senaatintori (node/314026734): valid\n" in text
    assert (
        "Helsinki (node/25389429): not valid\n"
        "  ruled out by question 4 (Tentacles museum 2 km): answered nearest Päivälehden museo, "
        "this zone would need nearest Ateneum\n"
    ) in text
    assert (
        "  ruled out by question 6 (Matching transit line): answered same, "
        "this zone would need different"
    ) in text
    assert "zone at (60.169, 24.95): valid" in text  # check_zone(...).point is (lat, lon), as given
    # The cost ledger.
    assert "Total: draw 19, pick 8" in text
    # The share link, pasted back both ways.
    assert re.search(r"share link: \d+ characters, https://\S+\?hzc=[A-Za-z0-9_-]+", text)
    assert "remaining area: 0.1085 km² from the game, 0.1085 km² from the link" in text
    assert "same remaining area from the share link" in text
    assert "read_game on the link: same remaining area, same 14 possible hiding zones" in text
    assert "1. Radius 1 km: within (recorded: within)" in text  # the hider's own answers


@pytest.mark.slow
def test_generate_play_area(generate_play_area):
    nb, probed = generate_play_area
    _ran_cleanly(nb)
    text = _text(nb)
    # The bundled area is a Polygon: the first run warns about nothing (issue 13).
    assert "warning" not in text
    assert "sioux-falls: Polygon, " in text
    n = probed["stations"]
    assert n > 0
    assert (
        f"{probed['elements']} OSM objects, {probed['water']} water areas -> "
        f"{probed['candidates']} candidates in the play area"
    ) in text
    # The same summary as the command line's: the README's quick start, read from README.md.
    readme = readme_summary()
    assert readme.line in text
    assert (readme.stations, readme.candidates) == (n, probed["candidates"])
    closest = readme_line("Closest stations: ")
    assert closest.split(", ")[0] in text  # the within-cluster half: the notebook's line
    # The cluster map: one offline page holding every station.
    (page,) = _maps(nb)
    assert f"{n} stations" in page and "Rejected candidates" in page
    assert not re.search(r"<script[^>]*\bsrc=|<link\b", page)
    # The plot.
    assert len(_outputs(nb, "image/png")) == 1
    # The exports, read back.
    # Every export holds every station; the KML has one placemark more, the play area.
    assert (
        f"stations.geojson read back: {n} stations; stations.kml: {n + 1} placemarks; "
        f"stations.csv: {n} rows"
    ) in text


@pytest.mark.slow
def test_generate_play_area_sweep(generate_play_area):
    """Each option's sweep passes through the defaults, and moves the count the right way."""
    _, probed = generate_play_area
    n = probed["stations"]
    assert n > 0
    by_option: dict[str, dict[int, int]] = {}
    for row in probed["sweep"]:
        by_option.setdefault(row["option"], {})[row["value"]] = row["stations"]
    # 300 m and 1000 m are the defaults; the cap is the one the map was auto-tuned to.
    assert by_option["min_spacing"][300] == by_option["cluster_gap"][1000] == n
    assert by_option["max_per_cluster"][probed["cap"]] == n
    for option in ("min_spacing", "cluster_gap"):
        counts = [n for _, n in sorted(by_option[option].items())]
        assert counts == sorted(counts, reverse=True), (option, counts)
    caps = by_option["max_per_cluster"]
    assert caps[1] < caps[2] <= caps[3] <= caps[0]  # 0 = no cap
    assert all(n <= caps[0] for n in caps.values())
