"""A user's own code inside a command: its errors exit 2 with a message, no traceback."""
from __future__ import annotations

import functools
from typing import Callable

from ..api import ApiError
from ..console import fail


def user_code_errors(command: Callable) -> Callable:
    """``command``, with an ApiError (an assignor that does not load, returns garbage or
    raises while the model runs it) reported as a bad input: exit 2."""
    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except ApiError as e:
            raise fail(str(e)) from None
    return run
