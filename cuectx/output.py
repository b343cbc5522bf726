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
from dataclasses import dataclass

from cuectx.errors import UsageError


@dataclass(frozen=True)
class Environment:
    stdout_isatty: bool | None = None  # None: ask sys.stdout
    width: int | None = None           # None: rich decides (the terminal, else 80)

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
