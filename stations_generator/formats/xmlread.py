"""XML play areas (KML, GPX) parsed within bounds, from a stream of chunks.

The bytes are fed to the parser as they are read (from a file or from a zip entry),
so a large file is never held whole, and the parse stops with a one-line error as
soon as the document passes a limit, before the memory is spent:

* :data:`MAX_XML_BYTES` bytes in all;
* :data:`MAX_ELEMENTS` elements (a 70 KiB KMZ can unpack to 16 million empty
  elements, about 1.6 GB as a tree);
* :data:`MAX_DEPTH` levels of nesting (a 3,000-deep MultiGeometry);
* no entity declarations (the stuff of "billion laughs" bombs; no map app writes them).
"""

from __future__ import annotations

from collections.abc import Iterable
from xml.etree import ElementTree as ET

from stations_generator.errors import InputError

#: Largest XML play area, in bytes: an outline of 500,000 points is about 15 MB of KML.
MAX_XML_BYTES = 48 * 1024**2
#: Most elements: a GPX track of 200,000 points (a point a second for 55 hours).
MAX_ELEMENTS = 250_000
#: Deepest nesting: KML's kml/Document/Folder…/Placemark/MultiGeometry/Polygon/…/coordinates
#: is about 10 levels; 100 leaves room for folders in folders.
MAX_DEPTH = 100


def parse_xml(chunks: Iterable[bytes], label: str) -> ET.Element:
    """The document's root element, parsed from ``chunks`` within the limits above.

    Parameters
    ----------
    chunks : iterable of bytes
        The document, in pieces of any size.
    label : str
        How to name the file in messages.

    Raises
    ------
    InputError
        Not well-formed XML, an entity declaration, or past a limit.
    """
    parser = ET.XMLPullParser(events=("start", "end"))
    total = elements = depth = 0
    tail = b""
    root = None
    try:
        for chunk in chunks:
            total += len(chunk)
            if total > MAX_XML_BYTES:
                raise InputError(
                    f"{label} is more than {MAX_XML_BYTES / 1024**2:.0f} MiB of XML, more than "
                    "a play area needs; simplify the outline or export the play area alone"
                )
            if b"<!ENTITY" in tail + chunk:  # (the tail: a declaration split between chunks)
                raise InputError(
                    f"{label} declares XML entities, which are not accepted; export it again"
                )
            tail = chunk[-8:]
            parser.feed(chunk)
            for event, element in parser.read_events():
                if event == "end":
                    depth -= 1
                    continue
                root = element if root is None else root
                elements += 1
                depth += 1
                _check_counts(elements, depth, label)
        parser.close()
    except ET.ParseError as exc:
        line, column = exc.position
        raise InputError(
            f"{label} is not valid XML (line {line}, column {column + 1}); export it again as "
            "KML or GPX"
        ) from None
    if root is None:
        raise InputError(f"{label} is empty; export the play area again")
    return root


def _check_counts(elements: int, depth: int, label: str) -> None:
    if elements > MAX_ELEMENTS:
        raise InputError(
            f"{label} holds more than {MAX_ELEMENTS:,} XML elements, more than a play area "
            "needs; simplify the outline or export the play area alone"
        )
    if depth > MAX_DEPTH:
        raise InputError(
            f"{label} nests XML elements more than {MAX_DEPTH} deep (e.g. MultiGeometry in "
            "MultiGeometry); flatten the geometry and export it again"
        )
