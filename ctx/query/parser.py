"""Recursive-descent parser for ctx queries.

    query   := or_expr END
    or_expr := and_expr ( OR and_expr )*
    and_expr:= unary ( [AND] unary )*          -- adjacent terms are ANDed
    unary   := ( NOT | '-' ) unary | primary
    primary := '(' or_expr ')' | field ':' value | WORD | "PHRASE"

NOT binds tightest, then AND, then OR. Keywords are case-insensitive.
"""
from __future__ import annotations

from datetime import UTC, datetime

from ctx.query import lexer as lx
from ctx.query.expr import And, Expr, Not, Or, Text
from ctx.query.fields import FIELDS, field_term
from ctx.query.lexer import Token, describe, syntax_error

# Limits that keep the SQL inside SQLite's fixed parser stack (100 entries in the builds we
# run on; deeper user nesting becomes deeper SQL nesting) and its expression/variable limits.
MAX_DEPTH = 10  # nested parentheses and NOTs
MAX_TERMS = 256

_TERM_START = frozenset({lx.WORD, lx.PHRASE, lx.FIELD, lx.LPAREN, lx.MINUS, lx.NOT})


def parse(src: str, *, now: datetime | None = None) -> Expr:
    """Parse query text into an Expr. Relative dates (`7d`) count back from `now`
    (default: the current UTC time). Raises ctx.core.errors.QuerySyntaxError."""
    if not isinstance(src, str):
        raise TypeError("query must be a str")
    return _Parser(lx.tokenize(src), now or datetime.now(UTC)).query()


class _Parser:
    def __init__(self, tokens: list[Token], now: datetime):
        self.tokens = tokens
        self.i = 0
        self.now = now
        self.depth = 0
        self.terms = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def query(self) -> Expr:
        if self.tok.kind == lx.END:
            raise syntax_error(0, "expected a term, found an empty query", "a term")
        self.need_term()
        expr = self.or_expr()
        if self.tok.kind == lx.RPAREN:
            raise syntax_error(self.tok.pos, "found ')' with no '(' before it",
                               "a term, AND, OR or end of query")
        assert self.tok.kind == lx.END, self.tok  # every other token starts or joins a term
        return expr

    def or_expr(self) -> Expr:
        items = [self.and_expr()]
        while self.tok.kind == lx.OR:
            self.advance()
            self.need_term("after OR")
            items.append(self.and_expr())
        return items[0] if len(items) == 1 else Or(tuple(items))

    def and_expr(self) -> Expr:
        items = [self.unary()]
        while True:
            if self.tok.kind == lx.AND:
                self.advance()
                self.need_term("after AND")
            elif self.tok.kind not in _TERM_START:
                break
            items.append(self.unary())
        return items[0] if len(items) == 1 else And(tuple(items))

    def unary(self) -> Expr:
        if self.tok.kind in (lx.NOT, lx.MINUS):
            op = self.advance()
            self.need_term("after NOT" if op.kind == lx.NOT else "after '-'")
            with self.nested(op):
                return Not(self.unary())
        return self.primary()

    def primary(self) -> Expr:
        tok = self.tok
        if tok.kind == lx.LPAREN:
            self.advance()
            self.need_term("after '('")
            with self.nested(tok):
                expr = self.or_expr()
            if self.tok.kind != lx.RPAREN:
                raise syntax_error(self.tok.pos, f"expected ')' to close the '(' at column "
                                   f"{tok.pos + 1}, found {describe(self.tok)}", "')'")
            self.advance()
            return expr
        self.count_term(tok)
        self.advance()
        if tok.kind == lx.FIELD:
            if tok.field in FIELDS and not tok.text and not tok.quoted:
                raise syntax_error(tok.value_pos, f"expected a value right after {tok.field}:,"
                                   f" found {describe(self.tok)}", f"a value for {tok.field}:")
            return field_term(tok, self.now)
        if tok.kind == lx.PHRASE:
            return Text(tok.text)
        assert tok.kind == lx.WORD, tok
        if tok.text.endswith("*") and tok.text.rstrip("*"):
            return Text(tok.text[:-1], prefix=True)
        return Text(tok.text)

    def need_term(self, where: str = "") -> None:
        if self.tok.kind not in _TERM_START:
            after = f" {where}" if where else ""
            raise syntax_error(self.tok.pos, f"expected a term{after}, found "
                               f"{describe(self.tok)}", "a term")

    def count_term(self, tok: Token) -> None:
        self.terms += 1
        if self.terms > MAX_TERMS:
            raise syntax_error(tok.pos, f"the query has more than {MAX_TERMS} terms; "
                               f"split it up", "end of query")

    def nested(self, tok: Token) -> _Depth:
        return _Depth(self, tok)


class _Depth:
    def __init__(self, parser: _Parser, tok: Token):
        self.parser, self.tok = parser, tok

    def __enter__(self) -> None:
        self.parser.depth += 1
        if self.parser.depth > MAX_DEPTH:
            raise syntax_error(self.tok.pos, f"the query nests parentheses and NOTs more than "
                               f"{MAX_DEPTH} deep", "a flatter query")

    def __exit__(self, *exc: object) -> None:
        self.parser.depth -= 1

