"""`ctx view list|show|create|update|delete`: named queries with a token budget."""
from __future__ import annotations

from typing import Annotated

import typer

from ctx.cli.options import RecordFormatOpt
from ctx.cli.output import (
    Format,
    emit_records,
    say,
)
from ctx.cli.state import open_store
from ctx.core.model import DEFAULT_BUDGET

view_app = typer.Typer(help="Named queries with a token budget (`default` feeds Claude Code).",
                       no_args_is_help=True)


@view_app.command("list")
def view_list(fmt: RecordFormatOpt = Format.auto) -> None:
    """List views.

    Example: ctx view list
    """
    with open_store(readonly=True) as store:
        views = store.list_views()
    emit_records([v.to_dict() for v in views], fmt, columns=["name", "budget", "query", "updated_at"],
                 free="query")


@view_app.command("show")
def view_show(name: Annotated[str, typer.Argument()] = "default",
              fmt: RecordFormatOpt = Format.auto) -> None:
    """Show one view.

    Example: ctx view show default
    """
    with open_store(readonly=True) as store:
        v = store.get_view(name)
    emit_records([v.to_dict()], fmt, single=True, columns=["name", "budget", "query", "updated_at"])


@view_app.command("create")
def view_create(
    name: Annotated[str, typer.Argument()],
    query_: Annotated[str, typer.Option("--query", "-q", help="The view's query.")],
    budget: Annotated[int, typer.Option("--budget", "-b", min=1, help="Token budget.")] = DEFAULT_BUDGET,
    fmt: RecordFormatOpt = Format.auto,
) -> None:
    """Create a view.

    Example: ctx view create api --query 'tag:project:api' --budget 8000
    """
    with open_store() as store:
        v = store.create_view(name, query_, budget)
    emit_records([v.to_dict()], fmt, single=True, columns=["name", "budget", "query"])


@view_app.command("update")
def view_update(
    name: Annotated[str, typer.Argument()],
    query_: Annotated[str | None, typer.Option("--query", "-q")] = None,
    budget: Annotated[int | None, typer.Option("--budget", "-b", min=1)] = None,
    fmt: RecordFormatOpt = Format.auto,
) -> None:
    """Change a view's query or budget.

    Example: ctx view update default --budget 80000
    """
    with open_store() as store:
        v = store.update_view(name, query=query_, budget=budget)
    emit_records([v.to_dict()], fmt, single=True, columns=["name", "budget", "query"])


@view_app.command("delete")
def view_delete(name: Annotated[str, typer.Argument()]) -> None:
    """Delete a view (not `default`).

    Example: ctx view delete api
    """
    with open_store() as store:
        store.delete_view(name)
    say(f"deleted view {name}")


def register(app: typer.Typer) -> None:
    app.add_typer(view_app, name="view")
