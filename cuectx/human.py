"""Words for people, shared by both programs' tables and the viewer: counted nouns
("1 node", "3 nodes") and relative times ("3 h ago"). Stdlib only; JSON never uses these
(it keeps absolute ISO times and bare numbers)."""
from __future__ import annotations

from datetime import UTC, datetime

_IRREGULAR = {"hypothesis": "hypotheses", "summary": "summaries", "entry": "entries",
              "secret": "secrets", "this": "these"}


def plural(n: int, noun: str, many: str | None = None) -> str:
    """'1 node', '2 nodes', '0 nodes'; `many` for an irregular plural."""
    if n == 1:
        return f"{n} {noun}"
    return f"{n:,} {many or _IRREGULAR.get(noun) or noun + 's'}"


def parse_time(value) -> datetime | None:
    """An ISO 8601 string (with or without zone; naive means UTC) or unix seconds → an aware
    datetime; None for empty or unreadable input."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, tz=UTC)
    text = str(value).strip().replace("Z", "+00:00")
    try:
        return datetime.fromtimestamp(float(text), tz=UTC)  # unix seconds as text
    except (ValueError, OverflowError, OSError):
        pass
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def ago(value, now: datetime | None = None) -> str:
    """'just now', '45 s ago', '12 min ago', '3 h ago', '2 d ago', then the date ('2026-03-04');
    a time in the future reads 'in 5 min'. Empty input → ''."""
    dt = parse_time(value)
    if dt is None:
        return "" if value in (None, "") else str(value)
    now = now or datetime.now(UTC)
    seconds = (now - dt).total_seconds()
    future, seconds = seconds < 0, abs(seconds)
    if seconds < 10:
        return "just now"
    if seconds < 60:
        amount = f"{int(seconds)} s"
    elif seconds < 3600:
        amount = f"{int(seconds // 60)} min"
    elif seconds < 86400 * 2:
        amount = f"{int(seconds // 3600)} h"
    elif seconds < 86400 * 30:
        amount = f"{int(seconds // 86400)} d"
    else:
        return dt.astimezone().strftime("%Y-%m-%d")
    return f"in {amount}" if future else f"{amount} ago"
