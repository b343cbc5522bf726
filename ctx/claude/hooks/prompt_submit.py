"""UserPromptSubmit: hand Claude what it asked for in its last reply — recall results, status,
expanded summaries, notes from an ended task — exactly once (seed §1, §8, §17), under the
character cap — then the memories relevant to the new prompt (ctx.claude.requests, SPEC §3), in
what is left of the cap, with a record of the request.
"""
from __future__ import annotations

from ctx.claude.hooks.call import HookCall
from ctx.claude.hooks.store_access import hook_scope, open_store
from ctx.core.text import Block, fit, node_line, text_len

FETCH_HINT = ("Ask again with a narrower <ctx:recall query=\"…\"/>, or run `ctx query '…'` "
              "or `ctx compose` through Bash.")


def run(call: HookCall) -> str | None:
    from ctx.claude import handoff

    prompt = call.text("prompt") or ""
    with open_store(call) as store:
        taken = handoff.take_pending(store, call.session_id)
        text = render_handoff(store, taken, call.max_chars) if taken else ""
        remaining = call.max_chars - text_len(text) - (2 if text else 0)
        # semantic selection (SPEC §3): the memories relevant to this prompt that the
        # conversation does not hold yet, recorded per request, in what is left of the cap
        selected = _select(call, store, prompt, remaining)
        text = "\n\n".join(t for t in (text, selected) if t)
    return text or None


def _select(call: HookCall, store, prompt: str, remaining: int) -> str:
    from ctx.claude.requests import build_request

    if not prompt.strip():
        return ""
    try:
        text = build_request(store.conn, call.session_id, prompt, max_chars=remaining,
                             db_path=call.db, scope=hook_scope(call, store)).text
        _prune(call, store)
        return text
    except Exception as exc:  # the hand-off above must still reach Claude
        from ctx.core.errors import CorruptDatabaseError

        if isinstance(exc, CorruptDatabaseError):
            raise
        call.warn(f"semantic selection skipped ({type(exc).__name__}: {exc})")
        return ""


def _prune(call: HookCall, store) -> None:
    """Retention ($CTX_REQUESTS_KEEP days) a few records at a time: this prompt's record in,
    the oldest expired ones out. A failure costs only the tidying."""
    from ctx.claude.requests import prune_step
    from ctx.core.settings import requests_keep_days

    try:
        prune_step(store.conn, requests_keep_days())
    except Exception as exc:  # noqa: BLE001
        call.warn(f"old request records not pruned ({type(exc).__name__}: {exc})")


def render_handoff(store, handoff, cap: int) -> str:
    from ctx.core.ids import short_ids

    ids = [n.get("id") for r in handoff.recalls for n in r.get("nodes", []) if isinstance(n, dict)]
    ids += handoff.expand_ids
    ids += [n.get("id") for note in handoff.notes for n in note.get("nodes", []) if isinstance(n, dict)]
    sid = short_ids(store, [i for i in ids if isinstance(i, str)])

    def short(node: dict) -> str:
        node_id = str(node.get("id", ""))
        return sid.get(node_id, node_id[:8])

    blocks: list[Block] = []
    for r in handoff.recalls:
        nodes = [n for n in r.get("nodes", []) if isinstance(n, dict)]
        total = r.get("total", len(nodes))
        found = f"Found {total} node{'s' if total != 1 else ''}"
        if isinstance(total, int) and total > len(nodes):
            found += f" (showing the first {len(nodes)})"
        blocks.append(Block(
            header=f"## Recall Results\n\nQuery: `{r.get('query', '')}`\n\n{found}:" if nodes
            else f"## Recall Results\n\nQuery: `{r.get('query', '')}`",
            items=[node_line(n, short(n)) for n in nodes],
            empty="No matching nodes found."))
    if handoff.status:
        blocks.append(Block(header="## ctx Status", items=[handoff.status]))
    if handoff.expand_ids:
        nodes = [n.to_dict() for n in store.get_many(handoff.expand_ids)]
        blocks.append(Block(header="## Expanded Nodes\n\nThe sources of the summary you expanded "
                                   "(shown once):",
                            items=[node_line(n, short(n)) for n in nodes]))
    for note in handoff.notes:
        nodes = [n for n in note.get("nodes", []) if isinstance(n, dict)]
        ids_attr = ",".join(short(n) for n in nodes)
        blocks.append(Block(
            header=f"## Task Ended: {note.get('task', '')}\n\n{len(nodes)} working node(s) moved to "
                   f"tier:off-context. Summarize them with <ctx:summarize nodes=\"{ids_attr}\" "
                   f"tags=\"tier:reference\">…</ctx:summarize>:",
            items=[node_line(n, short(n), preview=True) for n in nodes]))
    blocks += secret_blocks(handoff.secrets, short)
    blocks += duplicate_blocks(handoff.duplicates)
    text, _ = fit(blocks, cap, hint=FETCH_HINT)
    return text


def duplicate_blocks(notices: list[dict]) -> list[Block]:
    """Memories from the last reply that were not stored again (ctx.core.dedupe): the id
    that holds them, so Claude uses it (or supersedes it) instead of repeating itself."""
    if not notices:
        return []
    items = [f"\"{n.get('content', '')}\" — {n.get('message', '')}" for n in notices]
    return [Block(header="## Already Remembered\n\nFrom your last reply (use the existing id; "
                         "to change a fact, supersede it):", items=items)]


def secret_blocks(notices: list[dict], short) -> list[Block]:
    """What ctx.core.guard did to memories Claude wrote that held credentials (kinds only)."""
    refused = [n for n in notices if n.get("action") == "refused"]
    redacted = [n for n in notices if n.get("action") == "redacted"]

    def kinds(items):
        return ", ".join(dict.fromkeys(str(k) for n in items for k in n.get("kinds", [])))

    blocks = []
    if refused:
        blocks.append(Block(header="## Memory Refused", items=[
            (f"{len(refused)} <ctx:remember>/<ctx:summarize> from your last reply held a credential "
            f"({kinds(refused)}) and was NOT stored (CTX_SECRETS=refuse). Never put keys, tokens "
            f"or passwords in memory: remember where the secret lives (an env var name, a vault "
            f"path) instead, and write the memory again without it.")]))
    if redacted:
        ids = ", ".join(short({"id": i}) for n in redacted for i in n.get("node_ids", []))
        blocks.append(Block(header="## Secrets Redacted", items=[
            (f"A memory from your last reply held a credential ({kinds(redacted)}); it was stored "
            f"with [SECRET:<kind>] in its place{f' ({ids})' if ids else ''}. Never put keys, "
            f"tokens or passwords in memory; remember where the secret lives instead.")]))
    return blocks
