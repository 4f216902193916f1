"""The counterexample explorer: step through, branch from and compare any state of any
protocol, from Python (``Session``) or in a local web page (``groupcheck explore``)."""
from __future__ import annotations

from pathlib import Path

from groupcheck.model import itf

from .. import traces
from ..files import InputError, read_text
from .readonly import Recording
from .session import ExploreError, Session, open_scope, open_variant

__all__ = ["ExploreError", "Recording", "Session", "open_scope", "open_trace", "open_variant"]


def open_trace(path: str | Path, name: str | None = None) -> Session | Recording:
    """A trace file: a groupcheck trace opens at its initial state with its path ahead (and
    its recorded violation); any other ITF trace, or one the current model cannot replay,
    opens read-only (``Recording``). ExploreError names what is wrong with a file that is
    not an ITF trace at all. Messages and notes call the file ``name`` (default: ``path``
    as given; the web page gives the file's name, so no answer shows where it lies)."""
    path = Path(path)
    shown = name or str(path)

    def named(e: Exception) -> str:
        return f"{shown}: {str(e).replace(str(path), shown)}"

    try:
        tr = itf.load(read_text(path))
    except InputError as e:       # names the file itself
        raise ExploreError(str(e).replace(str(path), shown)) from None
    except itf.TraceError as e:
        raise ExploreError(named(e)) from None
    meta = tr.get("#meta", {})
    if all(k in meta for k in ("protocol", "scope", "path")):
        try:
            rec = traces.load(path)
        except traces.Untrusted as e:     # user code the command line did not name: refused
            raise ExploreError(str(e).replace(str(path), shown)) from None
        except traces.ReplayError as e:
            return _recording(tr, path, "opened read-only: " + str(e).replace(str(path), shown), named)
        recorded = rec.violation
        if recorded is not None and rec.loop is not None:      # a lasso (ITF loop): say where it repeats
            recorded = {**recorded, "message": f"{recorded['message']}; the cycle repeats from step {rec.loop}"}
        return Session(rec.protocol, rec.scope, rec.path[:1], rec.path[1:], source=path.name, recorded=recorded)
    return _recording(tr, path, "opened read-only: no groupcheck #meta (protocol, scope, path), so the "
                                "states are shown as recorded, with no actions or properties", named)


def _recording(tr: dict, path: Path, note: str, named) -> Recording:
    try:
        return Recording(tr, path.name, note)
    except ValueError as e:
        raise ExploreError(named(e)) from None
