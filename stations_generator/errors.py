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


class ArgumentError(InputError):
    """A bad argument: its message is the parameter's name, then the problem.

    Parameters
    ----------
    parameter : str
        The parameter's name, e.g. ``"min_spacing"``.
    problem : str
        The rest of the one-line message, e.g. ``" must be a number, not str '300'"``.
    """

    def __init__(self, parameter: str, problem: str) -> None:
        self.parameter, self.problem = parameter, problem
        super().__init__(f"{parameter}{problem}")

    def renamed(self, parameter: str) -> ArgumentError:
        """The same error naming the parameter otherwise (an API keyword for a field)."""
        return type(self)(parameter, self.problem)


class ArgumentValueError(ArgumentError, ValueError):
    """A value out of range, not finite, not one of the choices, not readable."""


class ArgumentTypeError(ArgumentError, TypeError):
    """A value of the wrong type: None, a str for a list, a bool or float for an int."""


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
