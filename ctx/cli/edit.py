"""`ctx edit ID`: a memory in $EDITOR (content, type, tags, metadata as front matter), saved
as a new version of it (Store.edit keeps the one it replaces; `ctx show --history` lists them).
The file format is ctx/core/memory_file.py."""
from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from ctx.core.errors import CtxError


def register(app: typer.Typer) -> None:
    """Add `ctx edit` to the app."""

    @app.command("edit")
    def edit(
        node: Annotated[str, typer.Argument(help="Node id or prefix.")],
        from_file: Annotated[Path | None, typer.Option(
            "--from", metavar="FILE", help="Apply this edited file instead of opening an "
                                           "editor (e.g. one a failed edit kept).")] = None,
    ) -> None:
        """Edit a memory in $VISUAL or $EDITOR: its content, type, tags and metadata (as front
        matter). Saving a change makes a new version (`ctx show ID --history` lists the
        earlier ones); an unchanged file changes nothing. If the file cannot be read back as
        a memory, nothing is saved and the text is kept in a file the error names.

        Example: ctx edit 01JD3K8W

        Example: EDITOR=nano ctx edit 01JD3K8W
        """
        from ctx.cli.output import say
        from ctx.cli.state import open_store
        from ctx.core import memory_file

        with open_store() as store:
            current = store.get(node)
            before = memory_file.render(current.content, current.type, current.tags,
                                        current.metadata)
            if from_file is not None:
                try:
                    text = from_file.read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as exc:
                    raise CtxError(f"cannot read {from_file}: {exc}") from None
            else:
                text = _in_editor(before, current.id)
            if text == before:
                say(f"{current.id}: unchanged; no new version")
                typer.echo(current.id)
                return
            try:
                edited = memory_file.parse(text)
                node_now, version = store.edit(current.id, content=edited.content,
                                               type=edited.type, tags=edited.tags,
                                               metadata=edited.metadata)
            except CtxError as exc:
                kept = _keep(text, current.id)
                raise CtxError(f"{exc}; nothing was saved — your text is in {kept} "
                               f"(fix it, then `ctx edit {current.id} --from {kept}`)") from None
        if version is None:
            say(f"{node_now.id}: unchanged; no new version")
        else:
            say(f"{node_now.id}: saved; the previous text is version {version} "
                f"(`ctx show {node_now.id} --history`)")
        typer.echo(node_now.id)


def _in_editor(text: str, node_id: str) -> str:
    """`text` after the user's editor had it (a 0600 file in a private temp folder)."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    folder = tempfile.mkdtemp(prefix="ctx-edit-")
    path = Path(folder) / f"{node_id}.md"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        try:
            proc = subprocess.run([*shlex.split(editor), str(path)], check=False)
        except OSError as exc:
            raise CtxError(f"cannot run the editor {editor!r} ($VISUAL/$EDITOR): "
                           f"{exc.strerror or exc}") from None
        edited = path.read_text(encoding="utf-8", errors="replace")
        if proc.returncode != 0:
            kept = _keep(edited, node_id) if edited != text else None
            raise CtxError(f"the editor {editor!r} exited with status {proc.returncode}; "
                           f"nothing was saved" + (f" (your text is in {kept})" if kept else ""))
        return edited
    finally:
        path.unlink(missing_ok=True)
        os.rmdir(folder)


def _keep(text: str, node_id: str) -> Path:
    """Save text a failed edit would lose: $CTX_HOME/edits/<id>-<time>.md, 0600."""
    from datetime import UTC, datetime

    from ctx.core.paths import home

    folder = home() / "edits"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{node_id}-{datetime.now(UTC):%Y%m%dT%H%M%S%fZ}.md"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    return path
