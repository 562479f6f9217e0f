"""Strip outputs from the notebooks in notebooks/, deterministically, before committing.

Run from anywhere: ``python scripts/strip_notebooks.py`` (or give notebook paths). Code
cells lose their outputs and execution counts, cells lose their metadata, and the
notebook keeps only the kernel spec and the language name, so running the notebook and
stripping it again gives the same bytes. ``--check`` changes nothing and exits 1 when a
notebook is not stripped (``tests/test_notebooks.py`` checks the same).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def strip(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return ``nb`` without outputs, execution counts and volatile metadata.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        A version-4 notebook (modified in place).

    Returns
    -------
    nbformat.NotebookNode
        The same notebook.
    """
    for cell in nb.cells:
        cell.metadata = nbformat.NotebookNode()
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nb.metadata = nbformat.NotebookNode(
        kernelspec=nbformat.NotebookNode(KERNELSPEC),
        language_info=nbformat.NotebookNode(name="python"),
    )
    nb.nbformat, nb.nbformat_minor = 4, 5
    return nb


def stripped_text(path: Path) -> str:
    """The text of ``path`` once stripped, exactly as :func:`main` writes it.

    Parameters
    ----------
    path : Path
        A ``.ipynb`` file.

    Returns
    -------
    str
    """
    nb = nbformat.read(path, as_version=4)
    text = nbformat.writes(strip(nb))
    return text if text.endswith("\n") else text + "\n"


def main(argv: list[str] | None = None) -> int:
    """Strip the given notebooks (default: every notebook in notebooks/).

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 1 with ``--check`` when a notebook is not stripped, else 0.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--check", action="store_true", help="only report; change nothing")
    args = parser.parse_args(argv)
    paths = args.paths or sorted((ROOT / "notebooks").glob("*.ipynb"))
    dirty = []
    for path in paths:
        text = stripped_text(path)
        if path.read_text("utf-8") != text:
            dirty.append(path)
            if not args.check:
                path.write_text(text, "utf-8")
    for path in dirty:
        print(f"{'not stripped' if args.check else 'stripped'}: {path}")
    return 1 if args.check and dirty else 0


if __name__ == "__main__":
    sys.exit(main())
