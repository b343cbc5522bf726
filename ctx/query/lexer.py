"""Split a ctx query into tokens, each with the character offset where it starts.

Tokens: `(`, `)`, a leading `-` (negation), the keywords AND / OR / NOT (any case),
`field:value` (value bare or "quoted"), bare words and "quoted phrases". A bare word runs
until whitespace, a parenthesis or a double quote; inside quotes, `\\"` is a quote and
`\\\\` a backslash. The lexer knows no field names: the parser checks them.
"""
from __future__ import annotations

from ctx.core.errors import QuerySyntaxError
from cuectx.value import Value

LPAREN, RPAREN, MINUS = "(", ")", "-"
AND, OR, NOT = "AND", "OR", "NOT"
WORD, PHRASE, FIELD, END = "word", "phrase", "field", "end"
KEYWORDS = (AND, OR, NOT)

_STOP = frozenset('()"')


class Token(Value):
    __slots__ = ("field", "kind", "pos", "quoted", "text", "value_pos")

    def __init__(self, kind: str, text: str, pos: int, field: str = "", value_pos: int = 0,
                 quoted: bool = False) -> None:
        self.kind = kind
        self.text = text  # the word, the phrase's inside, or the field's value
        self.pos = pos  # 0-based offset of the token's first character
        self.field = field  # FIELD only: the field name, lower-cased
        self.value_pos = value_pos  # FIELD only: offset of the value
        self.quoted = quoted  # FIELD only: the value was "quoted"


def syntax_error(pos: int, problem: str, expected: str | None = None) -> QuerySyntaxError:
    """A QuerySyntaxError whose message names the 1-based column."""
    return QuerySyntaxError(f"query syntax error at column {pos + 1}: {problem}", pos, expected)


def describe(tok: Token) -> str:
    """How an error message names a token."""
    if tok.kind == END:
        return "end of query"
    if tok.kind in (LPAREN, RPAREN, MINUS):
        return f"'{tok.kind}'"
    if tok.kind in KEYWORDS:
        return tok.kind
    if tok.kind == PHRASE:
        return f'"{show(tok.text)}"'
    if tok.kind == FIELD:
        return f"'{tok.field}:{show(tok.text)}'"
    return f"'{show(tok.text)}'"


def show(s: str, n: int = 30) -> str:
    """User text for an error message: clipped, on one line, no control characters."""
    s = s if len(s) <= n else s[: n - 1] + "…"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in s)


def tokenize(src: str) -> list[Token]:
    """Tokens of `src`, ending with an END token. Raises QuerySyntaxError."""
    out: list[Token] = []
    i, n = 0, len(src)
    for j, ch in enumerate(src):
        if "\ud800" <= ch <= "\udfff":
            raise syntax_error(j, "the query is not valid UTF-8 text", "text")
    while i < n:
        ch = src[i]
        if ch.isspace():
            i += 1
        elif ch in "()":
            out.append(Token(ch, ch, i))
            i += 1
        elif ch == '"':
            text, i2 = _quoted(src, i)
            out.append(Token(PHRASE, text, i))
            i = i2
        elif ch == "-" and _starts_term(src, i + 1) and (
                _word_start(src, i) or (out and out[-1].kind == MINUS and out[-1].pos == i - 1)):
            out.append(Token(MINUS, "-", i))
            i += 1
        else:
            start = i
            while i < n and not src[i].isspace() and src[i] not in _STOP:
                i += 1
            word = src[start:i]
            upper = word.upper()
            if upper in KEYWORDS:
                out.append(Token(upper, word, start))
                continue
            name, colon, value = word.partition(":")
            if colon and _is_field_name(name):
                value_pos = start + len(name) + 1
                quoted = False
                if not value and i < n and src[i] == '"':
                    value, i = _quoted(src, i)
                    quoted = True
                out.append(Token(FIELD, value, start, name.lower(), value_pos, quoted))
            else:
                out.append(Token(WORD, word, start))
    out.append(Token(END, "", n))
    return out


def _is_field_name(name: str) -> bool:
    return bool(name) and name[0].isascii() and name[0].isalpha() and all(
        c.isascii() and (c.isalnum() or c in "_-") for c in name
    )


def _word_start(src: str, i: int) -> bool:
    return i == 0 or src[i - 1].isspace() or src[i - 1] in "()"


def _starts_term(src: str, i: int) -> bool:
    return i < len(src) and not src[i].isspace() and src[i] != ")"


def _quoted(src: str, start: int) -> tuple[str, int]:
    """The text inside the quote that opens at `start`, and the offset after it."""
    buf: list[str] = []
    i, n = start + 1, len(src)
    while i < n:
        ch = src[i]
        if ch == "\\" and i + 1 < n and src[i + 1] in '"\\':
            buf.append(src[i + 1])
            i += 2
        elif ch == '"':
            return "".join(buf), i + 1
        else:
            buf.append(ch)
            i += 1
    raise syntax_error(start, "expected a closing '\"' for the quote opened here, found end "
                              "of query", "a closing '\"'")
