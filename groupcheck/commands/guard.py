"""A user's own code inside a command: its errors exit 2 with a message, no traceback;
a limit that struck inside it and no search caught exits as the limit says."""
from __future__ import annotations

import functools
import sys
from typing import Callable

import typer

from ..api import ApiError
from ..console import NOT_PROVED, fail, signal_code
from ..stopping import Stopped


def user_code_errors(command: Callable) -> Callable:
    """``command``, with an ApiError (an assignor that does not load, returns garbage or
    raises while the model runs it) reported as a bad input: exit 2; and a limit that
    struck inside the user's code outside any search (``stopping.Stopped``, which a
    search reports as a cut) as what it is: exit 3 (--max-seconds) or 130/143."""
    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except ApiError as e:
            raise fail(str(e)) from None
        except Stopped as e:
            if e.limit == "max-seconds":
                print(f"incomplete: --max-seconds ran out while {e.where} ran; nothing to report",
                      file=sys.stderr, flush=True)
                raise typer.Exit(NOT_PROVED) from None
            print(f"interrupted while {e.where} ran", file=sys.stderr, flush=True)
            raise typer.Exit(signal_code(e.signum)) from None
    return run
