"""TLA+ actions compiled into generators: Init and the next-state relation enumerated as
TLC does (see ``tla_compile.py`` for the conventions). ``ActionCompiler`` adds to the
expression compiler what only actions need: which conjuncts assign, ``x' = e`` and
``x' \\in S`` bindings, UNCHANGED, disjunctions and ``\\E`` as branches, and the label
(the first action operator entered) that names each step."""
from __future__ import annotations

from typing import Any, Callable

from .tla_compile import Compiler
from .tla_context import Cell, Definition, LetOp, SpecError, _line, _name
from .values import order


class ActionCompiler(Compiler):
    def __init__(self, defs: dict[str, Definition], constants: dict[str, Any], variables: tuple[str, ...]):
        super().__init__(defs, constants, variables)
        self._act_cache: dict[tuple[str, bool], Callable] = {}

    def action_def(self, name: str, init: bool = False) -> Callable:
        key = (name, init)
        if key not in self._act_cache:
            d = self.defs[name]
            self._act_cache[key] = None
            self._act_cache[key] = self.act(d.node, {p: None for p in d.params}, d.file, init)
        return self._act_cache[key]

    def is_action(self, node, scope: dict, init: bool) -> bool:
        """Does this conjunct assign (rather than test)? In Init, every conjunct that
        mentions a variable may; in Next, those that mention a primed variable."""
        if init:
            return True
        if _name(node) == "OperatorApplication" and isinstance(scope.get(node.operator), LetOp) \
                and scope[node.operator].action:
            return True
        return self.level(node, {k: None for k, v in scope.items() if not (isinstance(v, LetOp) and v.action)}) == 2

    def act(self, node, scope: dict, file: str, init: bool) -> Callable:
        kind = _name(node)
        if kind == "Parentheses":
            return self.act(node.expression, scope, file, init)
        if kind == "VerticalList":
            parts = [i.expression for i in node.arguments]
            return self.a_and(parts, scope, file, init) if node.operator == "/\\" else self.a_or(parts, scope, file, init)
        if kind == "OperatorApplication":
            op, args = node.operator, node.arguments or []
            if op in ("/\\", "\\land"):
                return self.a_and(args, scope, file, init)
            if op in ("\\/", "\\lor"):
                return self.a_or(args, scope, file, init)
            if op == "UNCHANGED" and not init:
                return self.a_unchanged(node, scope, file)
            if op in ("=", "\\in") and self._target(args[0], init):
                return self.a_assign(node, scope, file, init)
            if isinstance(scope.get(op), LetOp) and scope[op].action:
                return self.a_call_let(node, scope[op], args, scope, file, init)
            if op in self.defs and op not in scope and (init or self.def_level(op) == 2):
                return self.a_call(node, op, args, scope, file, init)
        if kind == "Quantification" and node.quantifier == "\\E" and self.is_action(node.predicate, scope, init):
            bounds, inner = self.bounds(node.declarations, scope, file)
            body = self.act(node.predicate, inner, file, init)

            def exists(ctx, loc, primed, label):
                ctx.primed = primed
                if init:
                    ctx.state = primed
                for l2 in self.assignments(bounds, ctx, loc):
                    yield from body(ctx, l2, primed, label)
            return self.a_guarded(node, file, exists, "\\E")
        if kind == "If" and self.is_action(node, scope, init):
            c = self.expr(node.predicate, scope, file)
            t, e = self.act(node.then, scope, file, init), self.act(node.else_, scope, file, init)

            def branch(ctx, loc, primed, label):
                ctx.primed = primed
                if init:
                    ctx.state = primed
                yield from (t if c(ctx, loc) else e)(ctx, loc, primed, label)
            return branch
        if kind == "Cases" and self.is_action(node, scope, init):
            arms = [(self.expr(c.predicate, scope, file), self.act(c.expression, scope, file, init)) for c in node.cases]
            other = self.act(node.other, scope, file, init) if node.other is not None else None
            line = _line(node)

            def case(ctx, loc, primed, label):
                ctx.primed = primed
                if init:
                    ctx.state = primed
                for p, a in arms:
                    if p(ctx, loc):
                        yield from a(ctx, loc, primed, label)
                        return
                if other is None:
                    raise SpecError(f"{file}:{line}: CASE: no arm applies and there is no OTHER")
                yield from other(ctx, loc, primed, label)
            return case
        if kind == "Let":
            inner = self.let_scope(node, scope, file)
            if self.is_action(node.expression, inner, init):
                body = self.act(node.expression, inner, file, init)
                keys = self.let_cells(inner, scope)
                if not keys:
                    return body

                def let_action(ctx, loc, primed, label):
                    loc2 = dict(loc)
                    for k in keys:
                        loc2[k] = Cell()
                    yield from body(ctx, loc2, primed, label)
                return let_action
        if kind in ("Fairness", "SubscriptedAction"):
            raise self.unsupported(node, file, "a temporal formula in an action")
        return self.a_test(node, scope, file, init)

    def _target(self, node, init: bool) -> str | None:
        """The variable ``x'`` (``x`` in Init) that ``node`` names, if it does."""
        if _name(node) != "OperatorApplication":
            return None
        if init:
            return node.operator if node.operator in self.variables and not node.arguments else None
        if node.operator == "'" and _name(node.arguments[0]) == "OperatorApplication":
            v = node.arguments[0].operator
            return v if v in self.variables else None
        return None

    def a_guarded(self, node, file, gen, what):
        line = _line(node)

        def run(ctx, loc, primed, label):
            try:
                yield from gen(ctx, loc, primed, label)
            except SpecError:
                raise
            except KeyError as e:
                raise SpecError(f"{file}:{line}: {what}: {e.args[0]!r} is outside the function's domain") from None
            except (TypeError, ValueError) as e:
                raise SpecError(f"{file}:{line}: {what}: {e}") from None
        return run

    def a_test(self, node, scope, file, init=False):
        test = self.expr(node, scope, file)
        line = _line(node)

        def run(ctx, loc, primed, label):
            ctx.primed = primed
            if init:
                ctx.state = primed
            value = test(ctx, loc)
            if value is True:
                yield label, primed
            elif value is not False:
                raise SpecError(f"{file}:{line}: a conjunct of an action is not a Boolean: {value!r}")
        return run

    def a_and(self, parts, scope, file, init):
        compiled = [self.act(p, scope, file, init) for p in parts]

        def chain(i, ctx, loc, primed, label):
            if i == len(compiled):
                yield label, primed
                return
            for lab, p in compiled[i](ctx, loc, primed, label):
                yield from chain(i + 1, ctx, loc, p, lab)
        return lambda ctx, loc, primed, label: chain(0, ctx, loc, primed, label)

    def a_or(self, parts, scope, file, init):
        compiled = [self.act(p, scope, file, init) for p in parts]

        def either(ctx, loc, primed, label):
            for c in compiled:
                yield from c(ctx, loc, primed, label)
        return either

    def a_assign(self, node, scope, file, init):
        v = self._target(node.arguments[0], init)
        value = self.expr(node.arguments[1], scope, file)
        member = node.operator == "\\in"
        line = _line(node)

        def run(ctx, loc, primed, label):
            ctx.primed = primed
            if init:
                ctx.state = primed
            try:
                got = value(ctx, loc)
            except SpecError:
                raise
            except (KeyError, TypeError, ValueError) as e:
                raise SpecError(f"{file}:{line}: {v}': {e}") from None
            if not member:
                if v in primed:
                    if primed[v] == got:
                        yield label, primed
                    return
                p = dict(primed)
                p[v] = got
                yield label, p
                return
            if not isinstance(got, frozenset):
                raise SpecError(f"{file}:{line}: {v}' \\in S needs a finite set, got {got!r}")
            if v in primed:
                if primed[v] in got:
                    yield label, primed
                return
            for x in sorted(got, key=order):
                p = dict(primed)
                p[v] = x
                yield label, p
        return run

    def _unchanged_vars(self, node, file) -> list[str]:
        kind = _name(node)
        if kind == "Parentheses":
            return self._unchanged_vars(node.expression, file)
        if kind == "Tuple":
            return [v for i in node.items for v in self._unchanged_vars(i, file)]
        if kind == "OperatorApplication" and not node.arguments:
            if node.operator in self.variables:
                return [node.operator]
            if node.operator in self.defs:
                d = self.defs[node.operator]
                return self._unchanged_vars(d.node, d.file)
        raise self.unsupported(node, file, "UNCHANGED of something other than variables and tuples of them")

    def a_unchanged(self, node, scope, file):
        names = self._unchanged_vars(node.arguments[0], file)

        def run(ctx, loc, primed, label):
            p = primed
            for v in names:
                if v in p:
                    if p[v] != ctx.state[v]:
                        return
                else:
                    if p is primed:
                        p = dict(primed)
                    p[v] = ctx.state[v]
            yield label, p
        return run

    def a_call(self, node, name, args, scope, file, init):
        d = self.defs[name]
        if len(args) != len(d.params):
            raise self.err(node, file, f"{name} takes {len(d.params)} argument(s), given {len(args)}")
        compiled = [self.expr(a, scope, file) for a in args]
        params = d.params
        body = None
        is_action = not init and self.def_level(name) == 2

        def run(ctx, loc, primed, label):
            nonlocal body
            if is_action and label is None:
                if ctx.want is not None and ctx.want != name:
                    return
                label = name
            if body is None:
                body = self.action_def(name, init)
            ctx.primed = primed
            if init:
                ctx.state = primed
            yield from body(ctx, {p: c(ctx, loc) for p, c in zip(params, compiled)}, primed, label)
        return run

    def a_call_let(self, node, let, args, scope, file, init):
        params, definiens, body_scope = let.params, let.node, let.scope
        if len(args) != len(params):
            raise self.err(node, file, f"the LET operator takes {len(params)} argument(s), given {len(args)}")
        compiled = [self.expr(a, scope, file) for a in args]
        body = self.act(definiens, body_scope, file, init)

        def run(ctx, loc, primed, label):
            ctx.primed = primed
            if init:
                ctx.state = primed
            loc2 = dict(loc)
            for p, c in zip(params, compiled):
                loc2[p] = c(ctx, loc)
            yield from body(ctx, loc2, primed, label)
        return run
