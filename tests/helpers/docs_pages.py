"""Reading the examples of the docs pages (docs/*.md) and of README.md: sections by
heading, fenced blocks by language, and the ``$ command  # exit N`` lines of console
blocks with the output lines shown under them."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def page(name: str) -> str:
    """The text of a docs page (``tools/library.md``), or of ``README.md``."""
    return (ROOT / name if name == "README.md" else DOCS / name).read_text()


def section(name: str, title: str) -> str:
    """The text under the heading ``title`` (any level) of page ``name``, up to the next heading."""
    text = page(name)
    found = re.search(rf"^#+ {re.escape(title)}\n", text, re.M)
    assert found, f"{name}: no heading {title!r}"
    nxt = re.compile(r"^#+ ", re.M).search(text, found.end())
    return text[found.start():nxt.start() if nxt else len(text)]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def commands(*texts: str) -> list[tuple[str, int, list[str]]]:
    """Each ``$ command  # exit N`` line of the texts' console blocks: (command, exit code,
    the output lines shown under it)."""
    out: list[tuple[str, int, list[str]]] = []
    for text in texts:
        for block in blocks(text, "console"):
            for line in block.splitlines():
                if line.startswith("$ "):
                    code = re.search(r"#\s*exit (\d+)", line)
                    out.append((line[2:], int(code.group(1)) if code else 0, []))
                elif line.strip() and out and line.strip() != "...":
                    out[-1][2].append(line.strip())
    return out
