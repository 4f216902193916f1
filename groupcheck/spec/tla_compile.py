"""The TLA+ syntax tree of the ``tla`` parser compiled into Python closures: expressions
here, actions in ``tla_actions.py`` (a subclass of this module's ``Compiler``).

Expressions become ``f(ctx, loc) -> value``: ``ctx.state`` holds the current state's
variables, ``ctx.primed`` the next state's bound so far, ``loc`` the values of bound
names (quantifiers, parameters, LET). Actions become generators
``g(ctx, loc, primed, label)`` that yield ``(label, primed)`` for every way the action
can step, as TLC enumerates them: conjuncts left to right, ``x' = e`` binds ``x'`` when
it is unbound and compares otherwise, ``x' \\in S`` binds each element, UNCHANGED binds
to the current value, a disjunction or ``\\E`` yields each branch, and any other
conjunct is a guard. Init is enumerated by the same code with unprimed variables as the
targets. ``label`` is the name of the first action operator entered (``Join`` in
``\\E c \\in Clients : Join(c)``), the action a step is named after."""
from __future__ import annotations

import itertools
from typing import Any, Callable, Iterator

from . import tla_builtins as B
from .tla_context import Cell, Definition, LetOp, RecFn, SpecError, _line, _name
from .values import Fcn, apply, fcn, order, update


class Compiler:
    def __init__(self, defs: dict[str, Definition], constants: dict[str, Any], variables: tuple[str, ...]):
        self.defs, self.constants, self.variables = defs, constants, frozenset(variables)
        self._expr_cache: dict[str, Callable] = {}
        self._levels: dict[str, int] = {}
        self._const_values: dict[str, Any] = {}

    # ------------------------------------------------------------ errors

    def err(self, node, file: str, text: str) -> SpecError:
        return SpecError(f"{file}:{_line(node)}: {text}")

    def unsupported(self, node, file: str, what: str | None = None) -> SpecError:
        return self.err(node, file, f"unsupported TLA+ construct: {what or _name(node)}")

    # ------------------------------------------------------------ levels

    def level(self, node, scope: dict | None = None) -> int:
        """0 constant, 1 state, 2 action (mentions a primed variable or UNCHANGED)."""
        scope = scope or {}
        found = 0
        for n in _walk(node):
            if _name(n) == "OperatorApplication":
                op = n.operator
                if op in ("'", "UNCHANGED"):
                    return 2
                if op in scope:
                    continue
                if op in self.variables:
                    found = max(found, 1)
                elif op in self.defs:
                    found = max(found, self.def_level(op))
                    if found == 2:
                        return 2
        return found

    def def_level(self, name: str) -> int:
        if name not in self._levels:
            self._levels[name] = 1          # a recursive definition: assume state level meanwhile
            d = self.defs[name]
            self._levels[name] = self.level(d.node, {p: None for p in d.params})
        return self._levels[name]

    # ------------------------------------------------------------ expressions

    def define(self, name: str) -> Callable:
        """A top-level definition's body as an expression."""
        if name not in self._expr_cache:
            d = self.defs[name]
            self._expr_cache[name] = lambda ctx, loc: (_ for _ in ()).throw(
                SpecError(f"{d.file}:{_line(d.node)}: {name} is defined in terms of itself"))
            scope = {p: None for p in d.params}
            if d.function:
                body = self.function_def(d, scope)
            else:
                body = self.expr(d.node, scope, d.file)
            if not d.params and not d.function and self.def_level(name) == 0:
                body = self._constant_def(name, body)
            self._expr_cache[name] = body
        return self._expr_cache[name]

    def _constant_def(self, name: str, body: Callable) -> Callable:
        values = self._const_values

        def constant(ctx, loc):
            if name not in values:
                values[name] = body(ctx, {})
            return values[name]
        return constant

    def function_def(self, d: Definition, scope: dict) -> Callable:
        """``f[x \\in S] == e``: computed over S, recursion through the memo."""
        node = d.node          # a Function node
        if _name(node) != "Function" or len(node.declaration) != 1:
            raise self.unsupported(node, d.file, "a recursive function definition over more than one bound")
        names, dom_fn = self.bound(node.declaration[0], scope, d.file)
        if len(names) != 1 or isinstance(names[0], tuple):
            raise self.unsupported(node, d.file, "a recursive function definition over a tuple bound")
        x = names[0]
        inner = dict(scope)
        inner[x] = None
        inner[d.name] = None
        value = self.expr(node.value, inner, d.file)

        def body(ctx, loc):
            loc2 = dict(loc)
            loc2[x] = loc["#arg"]
            return value(ctx, loc2)

        def make(ctx, loc):
            dom = dom_fn(ctx, loc)
            rec = RecFn(dom, body, loc, d.name)
            return fcn({v: rec.at(ctx, v) for v in sorted(dom, key=order)})
        return make

    def bound(self, decl, scope: dict, file: str) -> tuple[list, Callable]:
        """``x \\in S`` or ``<<a, b>> \\in S``: the names bound and S."""
        if _name(decl) != "OperatorApplication" or decl.operator != "\\in":
            raise self.unsupported(decl, file, "an unbounded quantifier or declaration (use x \\in S)")
        target, s = decl.arguments
        if _name(target) == "Tuple":
            names = [tuple(self.bound_name(i, file) for i in target.items)]
        else:
            names = [self.bound_name(target, file)]
        return names, self.expr(s, scope, file)

    def bound_name(self, node, file: str) -> str:
        """The identifier a quantifier binds (``x`` of ``x \\in S``); anything else (a set,
        a number) is one clear error, not a crash."""
        if _name(node) != "OperatorApplication" or node.arguments:
            raise self.unsupported(node, file, "a bound name that is not an identifier")
        return node.operator

    def bounds(self, decls: list, scope: dict, file: str) -> tuple[list, dict]:
        """A declaration list (``x, y \\in S, z \\in T``) as [(names, set fn)], and the
        scope with the names bound."""
        out = []
        pending: list = []
        inner = dict(scope)
        for decl in decls:
            if _name(decl) == "OperatorApplication" and not decl.arguments:
                pending.append(decl.operator)
                continue
            names, s = self.bound(decl, scope, file)
            out.append((pending + names, s))
            pending = []
        if pending:
            raise self.unsupported(decls[-1], file, "a declaration without a bound")
        for names, _ in out:
            for n in names:
                for m in (n if isinstance(n, tuple) else (n,)):
                    inner[m] = None
        return out, inner

    @staticmethod
    def assignments(bounds: list, ctx, loc) -> Iterator[dict]:
        """Every binding of the bound names, in the sets' canonical order."""
        def rec(i, loc):
            if i == len(bounds):
                yield loc
                return
            names, s = bounds[i]
            values = s(ctx, loc)
            if not isinstance(values, frozenset):
                raise TypeError(f"a quantifier's bound must be a finite set, got {values!r}")
            ordered = sorted(values, key=order)
            for combo in itertools.product(ordered, repeat=len(names)):
                loc2 = dict(loc)
                for n, v in zip(names, combo):
                    if isinstance(n, tuple):
                        if not isinstance(v, tuple) or len(v) != len(n):
                            raise TypeError(f"cannot match {v!r} with <<{', '.join(n)}>>")
                        loc2.update(zip(n, v))
                    else:
                        loc2[n] = v
                yield from rec(i + 1, loc2)
        return rec(0, loc)

    def guarded(self, node, file: str, fn: Callable, what: str) -> Callable:
        """``fn`` with Python's errors turned into a SpecError naming ``what`` and the line."""
        line = _line(node)

        def run(ctx, loc):
            try:
                return fn(ctx, loc)
            except SpecError:
                raise
            except KeyError as e:
                raise SpecError(f"{file}:{line}: {what}: {e.args[0]!r} is outside the function's domain") from None
            except (TypeError, ValueError, RecursionError) as e:
                raise SpecError(f"{file}:{line}: {what}: {e}") from None
        return run

    def expr(self, node, scope: dict, file: str) -> Callable:
        kind = _name(node)
        method = getattr(self, f"e_{kind}", None)
        if method is None:
            if node == "@":
                return lambda ctx, loc: loc["@"]
            raise self.unsupported(node, file)
        return method(node, scope, file)

    def e_IntegralNumeral(self, node, scope, file):
        v = int(node.value)
        return lambda ctx, loc: v

    def e_StringLiteral(self, node, scope, file):
        v = node.value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        return lambda ctx, loc: v

    def e_BooleanLiteral(self, node, scope, file):
        v = node.value == "TRUE"
        return lambda ctx, loc: v

    def e_Parentheses(self, node, scope, file):
        return self.expr(node.expression, scope, file)

    def e_SetOfBooleans(self, node, scope, file):
        return lambda ctx, loc: B.BOOLEAN

    def e_SetOfStrings(self, node, scope, file):
        s = B.Strings()
        return lambda ctx, loc: s

    def e_Tuple(self, node, scope, file):
        items = [self.expr(i, scope, file) for i in node.items]
        return lambda ctx, loc: tuple(f(ctx, loc) for f in items)

    def e_SetEnumeration(self, node, scope, file):
        items = [self.expr(i, scope, file) for i in node.items]
        return lambda ctx, loc: frozenset(f(ctx, loc) for f in items)

    def e_Record(self, node, scope, file):
        items = [(k, self.expr(v, scope, file)) for k, v in node.key_values]
        return lambda ctx, loc: fcn({k: f(ctx, loc) for k, f in items})

    def e_SetOfRecords(self, node, scope, file):
        items = [(kb.name, self.expr(kb.bound, scope, file)) for kb in node.key_bounds]

        def run(ctx, loc):
            keys = [k for k, _ in items]
            given = [B._set(f(ctx, loc)) for _, f in items]
            if not all(isinstance(s, frozenset) for s in given):     # membership only, as in TLC
                return B.RecordSet(dict(zip(keys, given)))
            sets = [sorted(s, key=order) for s in given]
            return frozenset(fcn(dict(zip(keys, combo))) for combo in itertools.product(*sets))
        return self.guarded(node, file, run, "a set of records")

    def e_SetOfFunctions(self, node, scope, file):
        dom, cod = self.expr(node.domain, scope, file), self.expr(node.codomain, scope, file)

        def run(ctx, loc):
            keys = sorted(B._fset(dom(ctx, loc)), key=order)
            values = sorted(B._fset(cod(ctx, loc)), key=order)
            return frozenset(fcn(dict(zip(keys, combo))) for combo in itertools.product(values, repeat=len(keys)))
        return self.guarded(node, file, run, "[S -> T]")

    def e_Function(self, node, scope, file):
        bounds, inner = self.bounds(node.declaration, scope, file)
        value = self.expr(node.value, inner, file)
        names = [n for ns, _ in bounds for n in ns]

        def key(loc):
            parts = [tuple(loc[m] for m in n) if isinstance(n, tuple) else loc[n] for n in names]
            return parts[0] if len(parts) == 1 else tuple(parts)

        def run(ctx, loc):
            return fcn({key(l2): value(ctx, l2) for l2 in self.assignments(bounds, ctx, loc)})
        return self.guarded(node, file, run, "[x \\in S |-> e]")

    def e_FunctionApplication(self, node, scope, file):
        f = self.expr(node.function, scope, file)
        args = [self.expr(a, scope, file) for a in node.arguments]

        def run(ctx, loc):
            fv = f(ctx, loc)
            x = args[0](ctx, loc) if len(args) == 1 else tuple(a(ctx, loc) for a in args)
            if isinstance(fv, RecFn):
                return fv.at(ctx, x)
            if not isinstance(fv, (tuple, Fcn)):
                raise TypeError(f"applying a non-function {fv!r}")
            return apply(fv, x)
        return self.guarded(node, file, run, "f[x]")

    def e_Field(self, node, scope, file):
        f = self.expr(node.expression, scope, file)
        name = node.name

        def run(ctx, loc):
            r = f(ctx, loc)
            if not isinstance(r, Fcn) or name not in r:
                raise TypeError(f"no field {name!r} in {r!r}")
            return r[name]
        return self.guarded(node, file, run, f".{name}")

    def e_Except(self, node, scope, file):
        base = self.expr(node.function, scope, file)
        changes = []
        for ch in node.changes:
            path = []
            for item in ch.item:
                if isinstance(item, str):
                    path.append((False, item))
                else:
                    keys = [self.expr(k, scope, file) for k in item]
                    path.append((True, keys))
            inner = dict(scope)
            inner["@"] = None
            changes.append((path, self.expr(ch.expression, inner, file)))

        def key_of(step, ctx, loc):
            is_fn, what = step
            if not is_fn:
                return what
            return what[0](ctx, loc) if len(what) == 1 else tuple(k(ctx, loc) for k in what)

        def change(value, path, i, ctx, loc, new):
            k = key_of(path[i], ctx, loc)
            old = apply(value, k)
            if i == len(path) - 1:
                loc2 = dict(loc)
                loc2["@"] = old
                return update(value, k, new(ctx, loc2))
            return update(value, k, change(old, path, i + 1, ctx, loc, new))

        def run(ctx, loc):
            value = base(ctx, loc)
            for path, new in changes:
                value = change(value, path, 0, ctx, loc, new)
            return value
        return self.guarded(node, file, run, "EXCEPT")

    def e_If(self, node, scope, file):
        c, t, e = (self.expr(n, scope, file) for n in (node.predicate, node.then, node.else_))
        return lambda ctx, loc: t(ctx, loc) if c(ctx, loc) else e(ctx, loc)

    def e_Cases(self, node, scope, file):
        arms = [(self.expr(c.predicate, scope, file), self.expr(c.expression, scope, file)) for c in node.cases]
        other = self.expr(node.other, scope, file) if node.other is not None else None
        line = _line(node)

        def run(ctx, loc):
            for p, v in arms:
                if p(ctx, loc):
                    return v(ctx, loc)
            if other is None:
                raise SpecError(f"{file}:{line}: CASE: no arm applies and there is no OTHER")
            return other(ctx, loc)
        return run

    def let_scope(self, node, scope: dict, file: str) -> dict:
        """The scope inside ``LET ... IN``: each definition compiled as an expression, or
        kept for the action compiler when it mentions a primed variable."""
        inner = dict(scope)
        for d in node.definitions:
            if _name(d) != "OperatorDefinition" or d.function:
                raise self.unsupported(d, file, "a LET definition other than an operator")
            params = tuple(p.operator for p in (d.arity or []))
            body_scope = dict(inner)
            body_scope.update({p: None for p in params})
            values = {k: None for k, v in body_scope.items() if not (isinstance(v, LetOp) and v.action)}
            action = self.level(d.definiens, values) == 2
            key = f"#let{id(d)}" if not params and not action else ""
            inner[d.name] = LetOp(params, self.expr(d.definiens, body_scope, file), key, d.definiens, body_scope,
                                  action)
        return inner

    @staticmethod
    def let_cells(inner: dict, scope: dict) -> tuple[str, ...]:
        """The cell keys of the parameterless definitions a LET adds to ``scope``."""
        return tuple(v.key for k, v in inner.items() if isinstance(v, LetOp) and v.key and scope.get(k) is not v)

    def e_Let(self, node, scope, file):
        inner = self.let_scope(node, scope, file)
        body = self.expr(node.expression, inner, file)
        keys = self.let_cells(inner, scope)
        if not keys:
            return body

        def run(ctx, loc):
            loc2 = dict(loc)
            for k in keys:
                loc2[k] = Cell()
            return body(ctx, loc2)
        return run

    def e_Quantification(self, node, scope, file):
        bounds, inner = self.bounds(node.declarations, scope, file)
        pred = self.expr(node.predicate, inner, file)
        if node.quantifier == "\\E":
            run = lambda ctx, loc: any(pred(ctx, l2) for l2 in self.assignments(bounds, ctx, loc))  # noqa: E731
        elif node.quantifier == "\\A":
            run = lambda ctx, loc: all(pred(ctx, l2) for l2 in self.assignments(bounds, ctx, loc))  # noqa: E731
        else:
            raise self.unsupported(node, file, node.quantifier)
        return self.guarded(node, file, run, node.quantifier)

    def e_Choose(self, node, scope, file):
        bounds, inner = self.bounds([node.declaration], scope, file)
        pred = self.expr(node.predicate, inner, file)
        name = bounds[0][0][0]
        line = _line(node)

        def run(ctx, loc):
            for l2 in self.assignments(bounds, ctx, loc):
                if pred(ctx, l2):
                    return l2[name] if not isinstance(name, tuple) else tuple(l2[m] for m in name)
            raise SpecError(f"{file}:{line}: CHOOSE: no element satisfies the predicate")
        return self.guarded(node, file, run, "CHOOSE")

    def e_SetSlice(self, node, scope, file):
        bounds, inner = self.bounds([node.declaration], scope, file)
        pred = self.expr(node.predicate, inner, file)
        name = bounds[0][0][0]

        def run(ctx, loc):
            out = []
            for l2 in self.assignments(bounds, ctx, loc):
                if pred(ctx, l2):
                    out.append(l2[name] if not isinstance(name, tuple) else tuple(l2[m] for m in name))
            return frozenset(out)
        return self.guarded(node, file, run, "{x \\in S : P}")

    def e_SetComprehension(self, node, scope, file):
        bounds, inner = self.bounds(node.declarations, scope, file)
        item = self.expr(node.item, inner, file)

        def run(ctx, loc):
            return frozenset(item(ctx, l2) for l2 in self.assignments(bounds, ctx, loc))
        return self.guarded(node, file, run, "{e : x \\in S}")

    def e_VerticalList(self, node, scope, file):
        parts = [self.expr(i.expression, scope, file) for i in node.arguments]
        if node.operator == "/\\":
            return lambda ctx, loc: all(p(ctx, loc) for p in parts)
        return lambda ctx, loc: any(p(ctx, loc) for p in parts)

    def e_OperatorApplication(self, node, scope, file):
        op, args = node.operator, node.arguments or []
        if op == "'":
            target = args[0]
            if _name(target) != "OperatorApplication" or target.operator not in self.variables or target.arguments:
                raise self.unsupported(node, file, "a prime on anything but a variable")
            v, line = target.operator, _line(node)

            def primed(ctx, loc):
                try:
                    return ctx.primed[v]
                except KeyError:
                    raise SpecError(f"{file}:{line}: {v}' is read before the action assigns it") from None
            return primed
        if op in scope:
            bound = scope[op]
            if bound is None:
                if args:
                    raise self.err(node, file, f"{op} is a value, not an operator")
                return lambda ctx, loc: loc[op]
            return self.call_let(node, bound, args, scope, file)
        if op in B.LOGIC:
            a, b = (self.expr(x, scope, file) for x in args)
            if op in ("/\\", "\\land"):
                return lambda ctx, loc: a(ctx, loc) and b(ctx, loc)
            if op in ("\\/", "\\lor"):
                return lambda ctx, loc: a(ctx, loc) or b(ctx, loc)
            if op == "=>":
                return lambda ctx, loc: (not a(ctx, loc)) or b(ctx, loc)
            return lambda ctx, loc: a(ctx, loc) == b(ctx, loc)
        if len(args) == 2 and op in B.INFIX:
            fn = B.INFIX[op]
            a, b = (self.expr(x, scope, file) for x in args)
            return self.guarded(node, file, lambda ctx, loc: fn(a(ctx, loc), b(ctx, loc)), op)
        if len(args) == 1 and op in B.PREFIX:
            fn = B.PREFIX[op]
            a = self.expr(args[0], scope, file)
            return self.guarded(node, file, lambda ctx, loc: fn(a(ctx, loc)), op)
        if op in self.variables:
            return lambda ctx, loc: ctx.state[op]
        if op in self.constants:
            value = self.constants[op]
            return lambda ctx, loc: value
        if op in self.defs:
            return self.call_def(node, op, args, scope, file)
        if op in B.NAMED:
            fn = B.NAMED[op]
            compiled = [self.expr(x, scope, file) for x in args]
            return self.guarded(node, file, lambda ctx, loc: fn(*(c(ctx, loc) for c in compiled)), op)
        if op in B.CONSTANT_SETS and not args:
            value = B.CONSTANT_SETS[op]
            return lambda ctx, loc: value
        if op in ("UNCHANGED", "ENABLED", "[]", "<>", "~>", "-+->", "\\cdot", "'"):
            raise self.unsupported(node, file, f"{op} in an expression")
        raise self.err(node, file, f"unknown name {op}")

    def call_def(self, node, name: str, args: list, scope: dict, file: str) -> Callable:
        d = self.defs[name]
        if len(args) != len(d.params):
            raise self.err(node, file, f"{name} takes {len(d.params)} argument(s), given {len(args)}")
        compiled = [self.expr(a, scope, file) for a in args]
        params = d.params
        body = None         # looked up when first run: a RECURSIVE operator is still being compiled here

        def run(ctx, loc):
            nonlocal body
            if body is None:
                body = self.define(name)
            if not params:
                return body(ctx, {})
            return body(ctx, {p: c(ctx, loc) for p, c in zip(params, compiled)})
        return run

    def call_let(self, node, let: LetOp, args: list, scope: dict, file: str) -> Callable:
        if len(args) != len(let.params):
            raise self.err(node, file, f"the LET operator takes {len(let.params)} argument(s), given {len(args)}")
        compiled = [self.expr(a, scope, file) for a in args]
        params, body = let.params, let.body
        if not params and not let.key:
            return body
        if not params:
            key = let.key

            def cached(ctx, loc):
                cell = loc[key]
                if not cell.done:
                    cell.value = body(ctx, loc)
                    cell.done = True
                return cell.value
            return cached

        def run(ctx, loc):
            loc2 = dict(loc)
            for p, c in zip(params, compiled):
                loc2[p] = c(ctx, loc)
            return body(ctx, loc2)
        return run


def _walk(node):
    """Every syntax node under ``node`` (lists and tuples of nodes included)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(n)
        elif isinstance(n, tuple) and hasattr(n, "_fields"):
            yield n
            for f in n._fields:
                if f not in ("symbol", "start", "end"):
                    stack.append(getattr(n, f))
        elif isinstance(n, tuple):
            stack.extend(n)
