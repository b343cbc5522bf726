"""How the viewer shows values: times people read ("3 h ago", the absolute local time on
hover, its zone named), markdown rendered safely, short copyable ids. Jinja filters; pure.

Markdown goes through markdown-it-py's CommonMark parser with raw HTML off (a `<script>` in a
digest is shown as text, never run), images off (no request leaves the page; the CSP would
refuse them anyway) and its link check on (no `javascript:` or `data:` links).
"""
from __future__ import annotations

from datetime import datetime

from markupsafe import Markup, escape

from cuectx.human import ago, parse_time

_md = None


def local(value) -> datetime | None:
    """A stored time (ISO, naive = UTC, or unix seconds) in this machine's zone — the viewer
    is served to the machine it runs on."""
    dt = parse_time(value)
    return dt.astimezone() if dt else None


def absolute(value) -> str:
    """'2026-11-25 14:50:20 CET' (local time, zone named)."""
    dt = local(value)
    return dt.strftime("%Y-%m-%d %H:%M:%S %Z") if dt else ""


def time_html(value, *, now: datetime | None = None) -> Markup:
    """<time> reading "3 h ago", the absolute local time (zone named) on hover."""
    dt = local(value)
    if dt is None:
        return Markup('<span class="none">—</span>')
    return Markup('<time datetime="{}" title="{}">{}</time>').format(
        dt.isoformat(timespec="seconds"), absolute(value), ago(dt, now))


def markdown_html(text: str | None) -> Markup:
    """Markdown as sanitised HTML: raw HTML escaped, no images, safe links only."""
    global _md
    if _md is None:
        from markdown_it import MarkdownIt

        _md = MarkdownIt("commonmark", {"html": False, "linkify": False,
                                        "typographer": False}).enable("table").disable("image")
    return Markup(_md.render(text or ""))


def short(node_id: str | None, shown: str | None = None) -> Markup:
    """A short id people can copy: one click selects all of it; the whole id on hover."""
    if not node_id:
        return Markup("")
    return Markup('<code class="id" title="{}">{}</code>').format(node_id, shown or node_id[:8])


def first_line(text: str | None, width: int = 90) -> str:
    """A text's first non-empty line, cut on a word with "…"."""
    from ctx.claude.request_view import item_name

    return item_name(text or "", width)


def install(env) -> None:
    """Register the filters on a Jinja environment."""
    env.filters["ago"] = time_html
    env.filters["absolute"] = absolute
    env.filters["markdown"] = markdown_html
    env.filters["short"] = short
    env.filters["first_line"] = first_line
    env.globals["escape"] = escape
    env.globals["mode_help"] = MODE_HELP
    env.globals["tier_help"] = TIER_HELP


MODE_HELP = {
    "always": "in every session's context from its start (tier pinned, reference or working)",
    "agent": "picked for a prompt when it is about it (by search score); no tier",
    "manual": "added to one session by hand; sent at its next prompt",
}

TIER_HELP = {
    "pinned": "always in context, first",
    "reference": "always in context, after pinned",
    "working": "always in context while it is current work",
    "off-context": "kept, never sent unless asked for",
    "none": "no tier: chosen per prompt when it is about it (Agent)",
}
