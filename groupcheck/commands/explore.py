"""``groupcheck explore``: the counterexample explorer in a local web page.

    groupcheck explore TRACE.itf.json            a counterexample, at its initial state
    groupcheck explore consumer --members 3      a scope, from its initial state
    groupcheck explore --variant KAFKA-16147     a known bug's scope

Serves on 127.0.0.1 (another address only with --host, which warns when it is not a
loopback address) at a free port unless --port, prints the URL and runs until Ctrl-C
(exit 0). Bad input exits 2 with the reason. The access log is off unless --log.
"""
from __future__ import annotations

import ipaddress
import os
import signal
import socket
from pathlib import Path
from typing import Optional

import typer

from ..console import err, fail, out
from ..protocols import PROTOCOLS
from ..scope_input import ASSIGNOR_HELP, overrides, trust_assignors
from ..explorer import ExploreError, open_trace, open_variant
from ..explorer.session import Session, scope_of

HOST = "127.0.0.1"


def _opener(target: Optional[str], variant: Optional[str], profile: Optional[str], scope: Optional[str],
            flags: dict):
    """A function making a fresh session of what the command line names (checked once here).
    A trace is checked under the path given, and named on the page by its file name alone."""
    given = [k for k, v in flags.items() if v is not None] + (["scope"] if scope else []) + \
        (["profile"] if profile else [])
    check = None
    if variant is not None:
        if target is not None or given:
            raise fail(f"--variant {variant} opens the variant's own scope; drop the other arguments")
        make = lambda: open_variant(variant)      # noqa: E731
    elif target is not None and target not in PROTOCOLS:
        if target.endswith(".json") or Path(target).exists():
            if given:
                raise fail(f"{target}: a trace carries its own scope; drop the scope options")
            check = lambda: open_trace(target)    # noqa: E731
            make = lambda: open_trace(target, name=Path(target).name)     # noqa: E731
        else:
            raise fail(f"{target!r} is neither a trace file nor a protocol (protocols: {', '.join(PROTOCOLS)})")
    else:
        from ..protocols import get
        protocol = get(target or "consumer")
        try:
            sc = scope_of(protocol, overrides(protocol, scope, flags), profile)
        except ExploreError as e:
            raise fail(str(e)) from None
        make = lambda: Session(protocol, sc, [0], source=f"{protocol.name} scope")   # noqa: E731
    try:
        (check or make)()
    except ExploreError as e:
        raise fail(str(e)) from None
    return make


def command(
    target: Optional[str] = typer.Argument(None, help=f"a trace file (.itf.json), or a protocol: {', '.join(PROTOCOLS)}"),
    variant: Optional[str] = typer.Option(None, help="open a known-bug variant's scope, e.g. KAFKA-16147"),
    profile: Optional[str] = typer.Option(None, help="behaviour profile (see `groupcheck list`)"),
    scope: Optional[str] = typer.Option(None, "--scope", help="scope as JSON, or @file.json"),
    members: Optional[int] = typer.Option(None, help="consumer: number of consumers"),
    partitions: Optional[str] = typer.Option(None, help="partitions per topic, e.g. 2,1"),
    instances: Optional[int] = typer.Option(None, help="streams-classic: number of instances"),
    tasks: Optional[int] = typer.Option(None, help="streams-classic: number of tasks"),
    max_generation: Optional[int] = typer.Option(None, help="explore up to this generation"),
    budget: Optional[int] = typer.Option(None, help="faults and operations per run"),
    faults: Optional[str] = typer.Option(None, help="e.g. crash,pause,lose_response"),
    operations: Optional[str] = typer.Option(None, help="e.g. add_partition,delete_topic"),
    plan: Optional[str] = typer.Option(None, help="configs in bounce order, as for check"),
    assignor: Optional[list[str]] = typer.Option(None, "--assignor", help=ASSIGNOR_HELP),
    host: str = typer.Option(HOST, help="the address to listen on (only 127.0.0.1 unless given); the page "
                                         "answers requests addressed to it or to a loopback name only"),
    port: int = typer.Option(0, min=0, max=65535, help="the port (0: a free one)"),
    out_dir: Optional[Path] = typer.Option(None, "--out", help="where the page's save buttons write (nothing is "
                                                               "written without it; the links download)"),
    log: bool = typer.Option(False, "--log", help="print werkzeug's access log (a line per request) on stderr"),
) -> None:
    """Explore a counterexample or a scope in a local web page: step, branch, compare.

    Prints the URL and serves until Ctrl-C (exit 0); exit 2 on bad input."""
    flags = {"members": members, "partitions": partitions, "instances": instances, "tasks": tasks,
             "max_generation": max_generation, "budget": budget, "faults": faults, "operations": operations,
             "plan": plan}
    trust_assignors(assignor)
    make = _opener(target, variant, profile, scope, flags)
    if out_dir is not None:
        if out_dir.exists() and not out_dir.is_dir():
            raise fail(f"--out {out_dir}: not a folder")
        out_dir = out_dir.resolve()           # saves land here even if the working folder changes
    from werkzeug.serving import make_server

    from ..explorer.server import QuietRequests, create_app
    listening = _listen(host, port)           # our own socket: a refusal is one line, not werkzeug's exit
    app = create_app(make, out_dir, host=host)
    server = make_server(host, port, app, threaded=True, fd=listening.fileno(),
                         request_handler=None if log else QuietRequests)
    listening.close()                         # the server holds its own copy
    if not _loopback(server.server_address[0]):
        err.print(f"groupcheck explore: warning: --host {host} makes the page reachable from the network: anyone "
                  f"who can reach port {server.port} of this machine can read the states it shows"
                  + (" and save into --out" if out_dir is not None else ""),
                  markup=False, highlight=False, soft_wrap=True)
    source = target or (f"variant {variant}" if variant else "consumer scope")
    shown = f"[{host}]" if ":" in host else host
    out.print(f"groupcheck explore: serving {source} at http://{shown}:{server.port}/ (Ctrl-C to stop)",
              markup=False, highlight=False, soft_wrap=True)
    out.file.flush()

    def stop(signum, frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)     # a second Ctrl-C while stopping changes nothing
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()      # werkzeug's returns on KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    err.print("groupcheck explore: stopped", highlight=False)


def _loopback(address: str) -> bool:
    """Whether the address the server is bound to is reachable from this machine only."""
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port``; exit 2 saying why it cannot be had."""
    from werkzeug.serving import select_address_family
    family = select_address_family(host, port)          # the family werkzeug will wrap the socket as
    try:
        address = socket.getaddrinfo(host, port, family=family, type=socket.SOCK_STREAM)[0][4]
        return socket.create_server(address, family=family, backlog=128)
    except (OSError, OverflowError) as e:
        if isinstance(e, OSError) and not isinstance(e, socket.gaierror) and e.errno:
            reason = os.strerror(e.errno)          # create_server's own text repeats the address
        else:
            reason = getattr(e, "strerror", None) or str(e)
        raise fail(f"cannot listen on {host}:{port}: {reason}") from None
