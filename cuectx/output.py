"""The output edge both programs share: where data goes, whether that is a terminal, and
a rich console that never reads user text as markup.

- `Environment` (httpie-style): is stdout a terminal, how wide is the console. Commands ask
  `environment()`; tests swap it with `use_environment(Environment(stdout_isatty=True,
  width=120))` and so render the table path without a terminal.
- `console()`: a rich Console on stdout (or stderr) with markup, emoji codes and
  highlighting off, so `[/b]`, `[link]` or `:smile:` in a memory print as written. Styling
  we mean comes in as `rich.text.Text` (`literal()` for a person's or Claude's text).
- `check_format()`: a command states the formats it supports; anything else is a usage
  error (exit 2), never silently ignored. `resolve()`: `auto` → table on a terminal, else
  the piped default (NDJSON for lists, JSON for one object).

rich is imported only when a table or panel is printed.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from cuectx.errors import UsageError
from cuectx.value import Value


class Environment(Value):
    """stdout_isatty: None asks sys.stdout. width: None lets rich decide (the terminal, else 80)."""

    __slots__ = ("stdout_isatty", "width")

    def __init__(self, stdout_isatty: bool | None = None, width: int | None = None) -> None:
        self.stdout_isatty = stdout_isatty
        self.width = width

    def isatty(self) -> bool:
        if self.stdout_isatty is not None:
            return self.stdout_isatty
        try:
            return sys.stdout.isatty()
        except (AttributeError, ValueError):
            return False


_env = Environment()


def environment() -> Environment:
    return _env


@contextmanager
def use_environment(env: Environment) -> Iterator[Environment]:
    """Run with `env` as the environment (tests), restoring the previous one after."""
    global _env
    previous, _env = _env, env
    try:
        yield env
    finally:
        _env = previous


def console(*, stderr: bool = False):
    """A rich Console for people: literal text (no markup, no emoji codes, no highlighting).
    Bound to the current sys.stdout/sys.stderr, so CliRunner and capsys see its output."""
    from rich.console import Console

    return Console(file=sys.stderr if stderr else sys.stdout, width=_env.width, markup=False,
                   emoji=False, highlight=False, soft_wrap=False)


def literal(text, style: str = ""):
    """User text as a rich Text: shown exactly as written, whatever brackets it holds."""
    from rich.text import Text

    return Text("" if text is None else str(text), style=style)


def check_format(fmt: str, supported: Iterable[str], *, command: str = "this command") -> str:
    """`fmt` if `command` supports it (or it is `auto`), else a usage error (exit 2)."""
    value = getattr(fmt, "value", fmt)
    allowed = list(supported)
    if value != "auto" and value not in allowed:
        raise UsageError(f"{command} has no --format {value}; use one of: "
                         f"{', '.join(['auto', *allowed])}")
    return value


def resolve(fmt: str, *, piped: str = "ndjson") -> str:
    """What `auto` means here: `table` on a terminal, else `piped`."""
    value = getattr(fmt, "value", fmt)
    if value != "auto":
        return value
    return "table" if _env.isatty() else piped


def terminal_width() -> int:
    """The width text for people is wrapped to: the environment's, else the terminal's."""
    if _env.width:
        return _env.width
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


def wrap_lines(lines: Iterable[str], *, indent: int = 2) -> list[str]:
    """Lines for a terminal: each wrapped between words to its width, the rest of a wrapped
    line indented (a word longer than the line stays whole); unwrapped when piped."""
    if not _env.isatty():
        return list(lines)
    import textwrap

    width = terminal_width()
    out = []
    for line in lines:
        out += textwrap.wrap(line, width, subsequent_indent=" " * indent,
                             break_long_words=False, break_on_hyphens=False) or [""]
    return out


# ---------------------------------------------------------------------------- fitted tables

class Col(Value):
    """A table column. Fixed columns (ids, numbers, times, names) keep one line at their
    natural width: never shrunk, never cut. The one `free` column (content, prompt, title)
    takes the width that is left and wraps between words, cut after `lines` lines with "…"
    (None: never cut). A `squeeze` column (tags, paths, reasons) may give up width before the
    free column drops under FREE_MIN: it then wraps between words too, never narrower than its
    longest word, so nothing is broken mid-word or cut to a stub and an ellipsis. A column
    whose every cell is empty is left out."""

    __slots__ = ("free", "header", "justify", "lines", "max_width", "squeeze", "style")

    def __init__(self, header: str, free: bool = False, squeeze: bool = False, style: str = "",
                 justify: str = "left", max_width: int | None = None,
                 lines: int | None = 2) -> None:
        self.header = header
        self.free = free
        self.squeeze = squeeze
        self.style = style
        self.justify = justify
        self.max_width = max_width
        self.lines = lines


FREE_MIN = 24  # the free column's floor (characters) before squeezable columns give way
GAP = 2        # characters between columns (one of padding, one of the blank rule)


def fit_widths(columns: list[Col], natural: list[int], width: int,
               longest_word: list[int] | None = None) -> list[int]:
    """Each column's width for a console `width` wide (pure; the rule in `Col`).
    `longest_word`: per column, the widest unbreakable word (how far a squeezable column may
    give way; default: its header)."""
    widths = [min(n, c.max_width) if c.max_width else n for c, n in zip(columns, natural)]
    floors = [max(len(c.header), (longest_word or [0] * len(columns))[i])
              for i, c in enumerate(columns)]
    free = [i for i, c in enumerate(columns) if c.free]
    spare = width - GAP * (len(columns) - 1) - sum(w for i, w in enumerate(widths) if i not in free)
    if not free:
        return widths
    f = free[0]
    # the free text's floor: readable, and never narrower than its longest word
    floor = min(widths[f], max(FREE_MIN, len(columns[f].header), floors[f]))
    # squeezable columns give way, widest first, down to their longest word (never further:
    # the free text narrows below its floor before a word is broken)
    need = floor - spare
    for i in sorted((i for i, c in enumerate(columns) if c.squeeze), key=lambda i: -widths[i]):
        if need <= 0:
            break
        give = min(need, widths[i] - floors[i])
        if give > 0:
            widths[i] -= give
            need -= give
            spare += give
    widths[f] = max(len(columns[f].header), min(widths[f], spare))
    return widths


def print_fitted(columns: list[Col], rows: list[list], *, title=None, stderr: bool = False,
                 con=None, header: bool = True) -> None:
    """Rows as a table that fits the console. A cell is a str (literal), a rich Text, or a
    pair (main, tail): the tail goes on its own lines under the main part and is never cut
    (the tags under a memory's content)."""
    from rich.table import Table
    from rich.text import Text

    con = con or console(stderr=stderr)
    tails = [{i: c[1] for i, c in enumerate(row) if isinstance(c, tuple)} for row in rows]
    cells = [[_text(c[0] if isinstance(c, tuple) else c) for c in row] for row in rows]
    keep = [i for i, col in enumerate(columns)
            if col.free or i == 0 or not cells or any(row[i].plain.strip() for row in cells)]
    columns = [columns[i] for i in keep]
    cells = [[row[i] for i in keep] for row in cells]
    tails = [{keep.index(i): _text(t) for i, t in tail.items() if i in keep} for tail in tails]
    natural = [max([len(col.header), *(_width(row[i]) for row in cells),
                    *(_width(tail[i]) for tail in tails if i in tail)])
               for i, col in enumerate(columns)]
    longest = [max([0, *(_longest_word(row[i]) for row in cells),
                    *(_longest_word(tail[i]) for tail in tails if i in tail)])
               if col.squeeze or col.free else 0 for i, col in enumerate(columns)]
    widths = fit_widths(columns, natural, con.width, longest)
    from rich import box

    table = Table(title=literal(title) if isinstance(title, str) else title,
                  box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, padding=(0, 1, 0, 0),
                  show_edge=False, title_justify="left", show_header=header,
                  title_style="bold", collapse_padding=True)
    for col, w in zip(columns, widths):
        wraps = col.free or (col.squeeze and w < _natural(col, natural, columns))
        table.add_column(literal(col.header), style=col.style, justify=col.justify, width=w,
                         no_wrap=not wraps, overflow="fold" if wraps else "ignore")
    for row, tail in zip(cells, tails):
        for i, col in enumerate(columns):
            if col.free and col.lines and _width(row[i]) > widths[i]:
                row[i] = _first_lines(con, row[i], widths[i], col.lines)
            if i in tail:  # a second part under the cell (tags under content), never cut
                row[i] = Text("\n").join([row[i], tail[i]])
        table.add_row(*row)
    con.print(table)


def _text(cell):
    from rich.text import Text

    return cell if isinstance(cell, Text) else literal(cell)


def _natural(col: Col, natural: list[int], columns: list[Col]) -> int:
    n = natural[columns.index(col)]
    return min(n, col.max_width) if col.max_width else n


def _width(text) -> int:
    """The widest line of a cell (a cell may hold several lines)."""
    from rich.cells import cell_len

    return max(cell_len(line) for line in text.plain.split("\n"))


def _longest_word(text) -> int:
    from rich.cells import cell_len

    return max([0, *(cell_len(w) for w in text.plain.split())])


def _first_lines(con, text, width: int, lines: int):
    """`text` word-wrapped to `width`, kept to `lines` lines; a cut drops the last partial
    word and ends in " …" (a word is never broken to make room for the ellipsis)."""
    from rich.text import Text

    wrapped = text.wrap(con, width, overflow="fold")
    if len(wrapped) <= lines:
        return text
    kept = list(wrapped)[:lines]
    last = kept[-1].copy()
    last.rstrip()
    while last.cell_len + 2 > width and " " in last.plain:
        last.right_crop(last.cell_len - last.plain.rstrip().rindex(" "))
        last.rstrip()
    if last.cell_len + 2 > width:
        last.truncate(max(0, width - 2))
    last.append(" …")
    return Text("\n").join([*kept[:-1], last])
