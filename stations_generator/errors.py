"""User-facing errors.

Every error a user can cause (bad file, bad option, unreachable Overpass) is a
:class:`UserError`. The CLI prints its message as one line on stderr and exits
non-zero, without a traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """An error caused by the user's input or environment, with a one-line message.

    The message names the problem and, where there is one, the fix.
    """

    exit_code = 2


class InputError(UserError):
    """A file or option the user gave is unusable (missing, wrong type, bad geometry...)."""


class NoDataError(UserError):
    """The inputs are valid but leave nothing to work with (empty area, no candidates)."""

    exit_code = 3


class NetworkError(UserError):
    """A network service (Overpass, Nominatim) could not be reached, timed out, or answered
    with an error or unusable data; the message names the service's URL."""

    exit_code = 4


class OverpassError(NetworkError):
    """Overpass could not be reached or answered with an error after every retry."""


class NominatimError(NetworkError):
    """Nominatim (``--place``) could not be reached or answered with an error."""


class OutputError(UserError):
    """An output could not be written: disk full, no permission, or another run's lock."""

    exit_code = 5


class OutputBusyError(OutputError):
    """Another run is writing to the same output folder."""
