"""The Typer option types ctx's commands share (--format, --project, --all-projects, …).

Declarations only: the state they fill and the store they open are ctx/cli/state.py (no
Typer there).
"""
from __future__ import annotations

from typing import Annotated

import typer

from ctx.cli.output import NODE_FORMATS, RECORD_FORMATS, formats

# Each command declares the formats it supports (ctx.cli.output.formats); others exit 2.
FormatOpt = formats(*NODE_FORMATS)         # commands that print nodes
RecordFormatOpt = formats(*RECORD_FORMATS)  # commands that print records (views, edges, status)
ProjectOpt = Annotated[str | None, typer.Option(
    "--project", "-P", metavar="NAME", help="This project (+ global) instead of the folder's; `global`: global only.")]
AllProjectsOpt = Annotated[bool, typer.Option("--all-projects", help="Every project's memory.")]
AllowSecretsOpt = Annotated[bool, typer.Option(
    "--allow-secrets", help="Store (or export) credentials as given instead of applying "
                            "$CTX_SECRETS (redact by default).")]
IncludeSupersededOpt = Annotated[bool, typer.Option("--include-superseded",
                                                    help="Also show nodes that were superseded.")]
