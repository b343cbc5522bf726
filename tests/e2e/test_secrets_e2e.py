"""The secret guard with the REAL Claude Code (issue 18): a memory Claude writes with a token in
it is refused (or redacted) by the Stop hook, the hooks still exit 0, and Claude's next
request carries the notice. Driven like tests/e2e/test_claude_code.py (mock model, no network)."""
from __future__ import annotations

import zlib

import pytest
from e2e_harness import harness

from ctx.core import db
from ctx.core.store import Store

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(1200)]

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _token(body30="R4nd0mT0k3nV4lu3Xq9Zk2Lm8Np5Wy") -> str:
    n, digits = zlib.crc32(body30.encode()), ""
    while n:
        n, r = divmod(n, 62)
        digits = B62[r] + digits
    return "ghp_" + body30 + digits.rjust(6, "0")


@pytest.mark.parametrize("policy", ["redact", "refuse"])
def test_a_token_in_a_remember_never_reaches_the_store_and_claude_is_told(claude_bin, ctx_bin, tmp_path,
                                                                           policy):
    token = _token()
    reply = [(f'Noted. <ctx:remember type="fact" tags="tier:reference">CI pushes with {token}'
             f"</ctx:remember>"), "Understood."]
    run = harness(claude_bin, ctx_bin, tmp_path / policy, "Remember the CI token", reply=reply,
                  turns=["What did you store?"], extra=["--env", f"CTX_SECRETS={policy}"])
    for h in run.hooks:  # hooks never break Claude Code: exit 0, Stop ends the turn
        assert h["exit_code"] == 0, h
        assert token not in h["stderr"]
    for h in run.calls("Stop"):
        assert h["stdout_json"] == {}
    stop_err = "".join(h["stderr"] for h in run.calls("Stop"))
    assert "github-token" in stop_err and ("refused" if policy == "refuse" else "redacted") in stop_err
    conn = db.connect()
    try:
        contents = [n.content for n in Store(conn).list_nodes()]
    finally:
        conn.close()
    assert contents == ([] if policy == "refuse" else ["CI pushes with [SECRET:github-token]"])
    header = "## Memory Refused" if policy == "refuse" else "## Secrets Redacted"
    second = run.request_text(1)
    assert f"UserPromptSubmit hook additional context: {header}" in second
    assert second.count(header) == 1
