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
from collections import namedtuple
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from cuectx.errors import UsageError

# Plain named tuples, not dataclasses: ctx's fast read path (ctx/cli/fast.py) loads this
# module, and `import dataclasses` (with inspect, ast, dis…) costs more than the rest of it.


class Environment(namedtuple("Environment", "stdout_isatty width", defaults=(None, None))):
    """stdout_isatty: None asks sys.stdout. width: None lets rich decide (the terminal, else 80)."""

    __slots__ = ()

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


# ---------------------------------------------------------------------------- fitted tables

class Col(namedtuple("Col", "header free squeeze style justify max_width lines",
                     defaults=(False, False, "", "left", None, 2))):
    """A table column. Fixed columns (ids, numbers, times) keep one line and never shrink
    below their header; the one `free` column (content, prompt, title) takes the width that
    is left and wraps, cut with "…" after `lines` lines (None: never cut, e.g. paths).
    `squeeze` marks a fixed column (tags, paths, names) that may give up width, down to its
    header, before the free column drops under `free_min`."""

    __slots__ = ()


FREE_MIN = 24  # the free column's floor (characters) before squeezable columns give way
GAP = 3        # characters between columns (padding, a blank rule, padding)


def fit_widths(columns: list[Col], natural: list[int], width: int) -> list[int]:
    """Each column's width for a console `width` wide (pure; the rule in `Col`)."""
    widths = [min(n, c.max_width) if c.max_width else n for c, n in zip(columns, natural)]
    free = [i for i, c in enumerate(columns) if c.free]
    spare = width - GAP * (len(columns) - 1) - sum(w for i, w in enumerate(widths) if i not in free)
    if not free:
        return widths
    f = free[0]
    floor = min(widths[f], max(FREE_MIN, len(columns[f].header)))
    if spare < floor:  # squeezable columns give way, widest first, down to their headers
        need = floor - spare
        for i in sorted((i for i, c in enumerate(columns) if c.squeeze),
                        key=lambda i: -widths[i]):
            give = min(need, widths[i] - len(columns[i].header))
            if give > 0:
                widths[i] -= give
                need -= give
                spare += give
            if need <= 0:
                break
    widths[f] = max(len(columns[f].header), min(widths[f], spare))
    return widths


def print_fitted(columns: list[Col], rows: list[list], *, title=None, stderr: bool = False,
                 con=None, header: bool = True) -> None:
    """Rows (cells are str or rich Text; str is literal) as a table that fits the console."""
    from rich.table import Table
    from rich.text import Text

    con = con or console(stderr=stderr)
    cells = [[c if isinstance(c, Text) else literal(c) for c in row] for row in rows]
    natural = [max([len(col.header), *(row[i].cell_len for row in cells)])
               for i, col in enumerate(columns)]
    widths = fit_widths(columns, natural, con.width)
    from rich import box

    table = Table(title=literal(title) if isinstance(title, str) else title,
                  box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False, padding=(0, 1),
                  show_edge=False, title_justify="left", show_header=header,
                  title_style="bold")
    for col, w in zip(columns, widths):
        table.add_column(literal(col.header), style=col.style, justify=col.justify, width=w,
                         no_wrap=not col.free, overflow="fold" if col.free else "ellipsis")
    for row in cells:
        for i, col in enumerate(columns):
            if col.free and col.lines and row[i].cell_len > widths[i]:
                row[i] = _first_lines(con, row[i], widths[i], col.lines)
        table.add_row(*row)
    con.print(table)


def _first_lines(con, text, width: int, lines: int):
    """`text` word-wrapped to `width`, kept to `lines` lines; a cut ends in "…"."""
    from rich.text import Text

    wrapped = text.wrap(con, width, overflow="fold")
    if len(wrapped) <= lines:
        return text
    kept = list(wrapped)[:lines]
    last = kept[-1].copy()
    last.rstrip()
    if last.cell_len >= width:
        last.truncate(width - 1)
    last.append("…")
    return Text("\n").join([*kept[:-1], last])
