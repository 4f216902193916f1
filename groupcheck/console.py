"""The consoles, the error exit and the progress bar every groupcheck command uses."""
from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

out = Console(width=None if sys.stdout.isatty() else 120)
err = Console(stderr=True)


def fail(message: str) -> typer.Exit:
    """Print ``message`` as an error; raise the result to exit 2 (bad options or files)."""
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False)
    return typer.Exit(2)


def progress() -> Progress:
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                    TextColumn("{task.completed:,} {task.fields[unit]}"), TimeElapsedColumn(),
                    console=err, transient=True, disable=not err.is_terminal)
