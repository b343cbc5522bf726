"""cue memory end to end: real SQLite, real Presidio, the anthropic SDK against a Messages
API stub on 127.0.0.1, httpx against an OpenAI-compatible stub, llama-cpp-python on the
generated tiny Gemma GGUF. The CLI runs in-process through `cue.cli.app.run`, so exit codes
and the one-line `Error: …` are the real ones."""
from __future__ import annotations

import json
import sys

import pytest
from cue_runner import everything_written, run_cue
from stubs import OpenAIStub

import cue.pii
from cue.cli import app as cli
from cue.core import paths
from cue.core.db import get_meta, set_meta
from cue.digest.memory import SECTIONS, parse_sections, render_memory, sections_of

NOW = 1_763_766_000.0  # 2025-11-21 23:00 UTC

# PII as a capture might have put it into digests written before a scrubber fix …
PLANTED = {
    "jane.doe@example.com": "emailed jane.doe@example.com about the v2 release",
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd":
        "pasted sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd into .env",
    "hunter2": "connected to postgres://admin:hunter2@db.internal:5432/prod",
    "jdoe": "opened /Users/jdoe/projects/atlas/plan.md",
}
# … and PII a model might put into its reply.
REPLY_PII = ["bob.smith@corp.example.com", "415-555-0134",
             "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "900101-1234567"]
REPLY = """Sure! Here is the updated memory.

## Ongoing projects
- Atlas migration to Postgres (since 2025-11-20); ping bob.smith@corp.example.com
- cue memory module, last seen 2025-11-21

## Open loops
1. Reply about the v2 release, call 415-555-0134
* Rotate token ghp_16C7e42F292c6912E7710c838347Ae178B4a

**Recurring patterns**
- Reviews pull requests in the afternoon; RRN 900101-1234567

## Recently finished
- none

Let me know if you want changes!"""
GOOD_REPLY = """## Ongoing projects
- Atlas migration (since 2025-11-20)
## Open loops
- v2 release notes
## Recurring patterns
- Tests before commits
## Recently finished
- Reviewed PR 42 (done 2025-11-21)"""






def plant(conn, text: str, *, ended: float, status: str = "ok") -> int:
    """A raw digests row, as written before the current scrubber (no scrub on the way in)."""
    cur = conn.execute(
        "INSERT INTO digests (created_at, window_start, window_end, status, backend, summary, "
        "frame_count, event_count) VALUES (?, ?, ?, ?, 'cloud', ?, 3, 12)",
        (ended, ended - 900, ended, status, text))
    return cur.lastrowid


def plant_before_bump(conn, monkeypatch, texts: list[str], *, first_end: float) -> None:
    """Rows stored under the old scrub version, then the scrubber's version is bumped."""
    old = cue.pii.SCRUB_VERSION
    for i, text in enumerate(texts):
        plant(conn, text, ended=first_end + i * 900)
    set_meta(conn, "scrub_version", str(old))
    monkeypatch.setattr(cue.pii, "SCRUB_VERSION", old + 1)






def sent_prompts(stub) -> str:
    return "\n".join(r["raw"].decode("utf-8") for r in stub.requests)


# ------------------------------------------------------------------ the privacy contract
def test_memory_sees_and_writes_only_scrubbed_text(conn, cloud, monkeypatch, capsysbinary):
    plant_before_bump(conn, monkeypatch, list(PLANTED.values()), first_end=NOW - 4 * 3600)

    code, out, err = run_cue(monkeypatch, capsysbinary, "memory", "--format", "json")

    assert code == 0, err
    assert cloud.count == 1
    prompt = sent_prompts(cloud)
    for secret in PLANTED:
        assert secret not in prompt  # the prompt that reached the API is clean …
    assert "[EMAIL]" in prompt and "[DB_URL]" in prompt  # … because it was scrubbed,
    assert "about the v2 release" in prompt  # not because the digests were left out
    written = everything_written() + out + err
    for secret in list(PLANTED) + REPLY_PII:
        assert secret not in written  # nor in memory.md, any table, privacy.log, stdout
    # the stored digests themselves were backfilled under the new version
    assert get_meta(conn, "scrub_version") == str(cue.pii.SCRUB_VERSION)
    record = json.loads(out)
    assert record["type"] == "summary" and "source:cue" in record["tags"]
    assert record["content"] == paths.memory_md().read_text()
    assert "[EMAIL]" in record["content"] and "[PHONE]" in record["content"]


def test_memory_reply_pii_is_scrubbed_on_the_server_backend_too(conn, monkeypatch,
                                                                capsysbinary):
    plant(conn, "Worked on the Atlas migration.", ended=NOW - 600)
    with OpenAIStub(reply=REPLY) as stub:
        monkeypatch.setenv("CUE_MEMORY_BACKEND", "server")
        monkeypatch.setenv("CUE_SERVER_URL", stub.url + "/v1")
        code, out, err = run_cue(monkeypatch, capsysbinary, "memory")
        assert stub.count == 1
    assert code == 0, err
    for secret in REPLY_PII:
        assert secret not in everything_written() + out
    row = conn.execute("SELECT backend, content FROM memory").fetchone()
    assert row["backend"] == "server" and row["content"] == out


# ------------------------------------------------------------------ what memory.md looks like
def test_memory_md_has_a_date_and_the_four_sections_in_order(conn, cloud, monkeypatch,
                                                            capsysbinary):
    plant(conn, "Worked on the Atlas migration.", ended=NOW - 1800)
    plant(conn, "Reviewed PR 42.", ended=NOW - 900)
    run_cue(monkeypatch, capsysbinary, "memory")
    text = paths.memory_md().read_text()
    lines = text.splitlines()
    assert lines[0] == "# Memory"
    assert lines[2] == ("_Updated 2025-11-21 23:00 UTC from 2 digests, "
                        "2025-11-21 22:15 – 2025-11-21 22:45 UTC._")
    headings = [line[3:] for line in lines if line.startswith("## ")]
    assert headings == list(SECTIONS)
    assert "Sure! Here is" not in text and "Let me know" not in text  # chatter dropped
    assert "- Rotate token [API_KEY]" in text  # '*' and '1.' bullets normalised
    assert "## Recently finished\n- none\n" in text
    assert paths.memory_md().stat().st_mode & 0o777 == 0o600


def test_parse_sections_tolerates_loose_replies():
    parsed = parse_sections("# MEMORY.md\nintro\n### Projects:\n- a\n- a\n\n## Extra\n- x\n"
                            "**Open loops**\n+ b\n- (none)")
    assert parsed == {"Ongoing projects": ["a"], "Notes": ["x"], "Open loops": ["b"]}
    assert parse_sections("just a sentence\nand another") == {
        "Notes": ["just a sentence", "and another"]}
    long = parse_sections("## Open loops\n- " + "x" * 500)["Open loops"][0]
    assert len(long) == 300 and long.endswith("…")
    rendered = render_memory({"Notes": ["n"]}, NOW, [])
    assert rendered.index("## Recently finished") < rendered.index("## Notes")
    assert sections_of(rendered).startswith("## Ongoing projects")


def test_prompt_keeps_current_memory_asks_to_drop_stale_and_reads_only_new_digests(
        conn, cloud, monkeypatch, capsysbinary):
    plant(conn, "Started the Atlas migration.", ended=NOW - 7200)
    cloud.reply = GOOD_REPLY
    run_cue(monkeypatch, capsysbinary, "memory")
    # A day later: one new digest. A person edited memory.md meanwhile.
    md = paths.memory_md()
    md.write_text(md.read_text().replace("Tests before commits",
                                         "Tests before commits (mail me: kim@ex.org)"))
    plant(conn, "Finished the Atlas migration and wrote release notes.", ended=NOW + 86_000)
    plant(conn, "Late digest of an early window: sketched the schema.", ended=NOW - 10_000)
    monkeypatch.setattr("time.time", lambda: NOW + 86_400)
    monkeypatch.setattr(sys, "argv", ["cue", "memory"])
    with pytest.raises(SystemExit):
        cli.run()
    assert cloud.count == 2
    second = cloud.requests[1]["body"]["messages"][0]["content"]
    assert "Finished the Atlas migration" in second
    assert "Started the Atlas migration" not in second  # already folded in
    assert "sketched the schema" in second  # written after the update: new, however old
    assert "Tests before commits (mail me: [EMAIL])" in second  # edits carry, scrubbed
    assert "kim@ex.org" not in second
    assert "Today is 2025-11-22" in second
    assert "Drop what is stale" in second and "Keep what is still true" in second
    assert conn.execute("SELECT count(*) FROM memory").fetchone()[0] == 2


def test_skipped_and_empty_digests_are_not_activity(conn, cloud, monkeypatch, capsysbinary):
    plant(conn, "[skipped: local vision model unavailable]", ended=NOW - 900, status="skipped")
    plant(conn, "[no recent activity]", ended=NOW - 600, status="empty")
    code, out, err = run_cue(monkeypatch, capsysbinary, "memory")
    assert (code, out, cloud.count) == (0, "", 0)
    assert "no new digests" in err
    assert not paths.memory_md().exists()
    assert conn.execute("SELECT count(*) FROM memory").fetchone()[0] == 0


def test_memory_model_is_configurable(conn, cloud, monkeypatch, capsysbinary):
    paths.config_path().write_text('[memory]\nmodel = "claude-opus-custom"\nmax_tokens = 900\n')
    plant(conn, "Worked on Atlas.", ended=NOW - 600)
    assert run_cue(monkeypatch, capsysbinary, "memory")[0] == 0
    body = cloud.requests[0]["body"]
    assert body["model"] == "claude-opus-custom" and body["max_tokens"] == 900


# ------------------------------------------------------------------ failures keep the memory
@pytest.mark.parametrize("status", [500, 400])
def test_model_failure_writes_nothing_and_keeps_the_previous_memory(
        conn, cloud, monkeypatch, capsysbinary, status):
    plant(conn, "Worked on Atlas.", ended=NOW - 1800)
    cloud.reply = GOOD_REPLY
    assert run_cue(monkeypatch, capsysbinary, "memory")[0] == 0
    before_md = paths.memory_md().read_bytes()
    before_rows = conn.execute("SELECT * FROM memory").fetchall()

    plant(conn, "Worked on Atlas some more.", ended=NOW - 60)
    cloud.status = status
    monkeypatch.setattr("time.time", lambda: NOW + 60)
    code, out, err = run_cue(monkeypatch, capsysbinary, "memory", "--format", "json")

    assert code == 5 and out == ""
    assert err.count("\n") == 1 and err.startswith("Error: memory not updated: the cloud model")
    assert "previous memory is kept" in err
    assert paths.memory_md().read_bytes() == before_md
    assert [tuple(r) for r in conn.execute("SELECT * FROM memory")] == \
        [tuple(r) for r in before_rows]
    log = [json.loads(line) for line in paths.privacy_log().read_text().splitlines()]
    assert [e["event"] for e in log][-2:] == ["memory_cloud_failed", "memory_not_updated"]


def test_no_api_key_sends_nothing(conn, cloud, monkeypatch, capsysbinary):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    plant(conn, "Worked on Atlas.", ended=NOW - 600)
    code, out, err = run_cue(monkeypatch, capsysbinary, "memory")
    assert (code, out, cloud.count) == (5, "", 0)
    assert err.startswith("Error: memory not updated")
    assert not paths.memory_md().exists()


def test_local_failure_without_fallback_never_reaches_the_cloud(conn, cloud, monkeypatch,
                                                                capsysbinary, tmp_path):
    monkeypatch.setenv("CUE_MEMORY_BACKEND", "local")
    monkeypatch.setenv("CUE_LOCAL_MODEL", str(tmp_path / "missing.gguf"))
    plant(conn, "Worked on Atlas.", ended=NOW - 600)
    code, _, err = run_cue(monkeypatch, capsysbinary, "memory")
    assert code == 5 and "local model could not answer" in err
    assert cloud.count == 0 and not paths.memory_md().exists()
    assert str(tmp_path) not in err  # the path is only in privacy.log (as [PATH]/scrubbed)

    monkeypatch.setenv("CUE_DIGEST_ALLOW_CLOUD_FALLBACK", "true")  # opt in: cloud answers
    cloud.reply = GOOD_REPLY
    assert run_cue(monkeypatch, capsysbinary, "memory")[0] == 0
    assert cloud.count == 1
    row = conn.execute("SELECT backend, fell_back FROM memory").fetchone()
    assert (row["backend"], row["fell_back"]) == ("cloud", 1)


def test_bad_input_is_one_error_line(conn, monkeypatch, capsysbinary):
    code, out, err = run_cue(monkeypatch, capsysbinary, "memory", "--backend", "gpu")
    assert code == 1 and out == "" and err.startswith("Error: ") and err.count("\n") == 1
    code, out, err = run_cue(monkeypatch, capsysbinary, "memory", "--since", "yesterday")
    assert code == 1 and out == "" and err.startswith("Error: ")


def test_memory_show_before_any_memory_is_not_found(conn, monkeypatch, capsysbinary):
    code, out, err = run_cue(monkeypatch, capsysbinary, "memory", "show")
    assert code == 3 and out == "" and err.startswith("Error: no memory yet")  # exit table: 3


# ------------------------------------------------------------------ local (tiny GGUF)
def test_local_memory_with_the_tiny_gemma(conn, cloud, monkeypatch, capsysbinary,
                                          tiny_model, tmp_path):
    model, _ = tiny_model
    monkeypatch.setenv("CUE_MEMORY_BACKEND", "local")
    monkeypatch.setenv("CUE_LOCAL_MODEL", str(tmp_path / "vision-only.gguf"))  # not used:
    monkeypatch.setenv("CUE_MEMORY_LOCAL_MODEL", model)  # memory.local_model wins
    monkeypatch.setenv("CUE_MEMORY_MAX_TOKENS", "24")
    monkeypatch.setenv("CUE_LOCAL_THREADS", "1")
    plant(conn, "Worked on Atlas.", ended=NOW - 600)
    code, out, err = run_cue(monkeypatch, capsysbinary, "memory")
    assert code == 0, err
    assert cloud.count == 0  # nothing left the machine
    row = conn.execute("SELECT backend, model, output_tokens, content FROM memory").fetchone()
    assert row["backend"] == "local" and row["model"] == "tiny-gemma3.gguf"
    assert 0 < row["output_tokens"] <= 24
    assert row["content"] == out == paths.memory_md().read_text()
    # random weights answer gibberish without headings: kept under Notes, sections still there
    assert [line[3:] for line in out.splitlines() if line.startswith("## ")][:4] == \
        list(SECTIONS)


# ------------------------------------------------------------------ show, history, dry run
def test_show_history_and_dry_run(conn, cloud, monkeypatch, capsysbinary):
    plant(conn, "Worked on Atlas; mailed jane.doe@example.com.", ended=NOW - 600)
    code, out, _ = run_cue(monkeypatch, capsysbinary, "memory", "--dry-run")
    assert code == 0 and cloud.count == 0 and not paths.memory_md().exists()
    assert "Worked on Atlas; mailed [EMAIL]." in out and "jane.doe" not in out

    cloud.reply = GOOD_REPLY
    _, written, _ = run_cue(monkeypatch, capsysbinary, "memory")
    assert run_cue(monkeypatch, capsysbinary, "memory", "show")[1] == written
    shown = json.loads(run_cue(monkeypatch, capsysbinary, "memory", "show", "-f", "json")[1])
    assert shown["digest_count"] == 1 and shown["model"] == "claude-opus-4-5"
    assert shown["created_at"] == "2025-11-21T23:00:00.000Z"
    history = run_cue(monkeypatch, capsysbinary, "memory", "history", "-f", "table")[1]
    assert "claude-opus-4-5" in history and len(history.splitlines()) == 2


def test_show_scrubs_a_memory_stored_before_a_scrubber_fix(conn, monkeypatch, capsysbinary):
    conn.execute("INSERT INTO memory (created_at, content, backend, digest_count) "
                 "VALUES (?, ?, 'cloud', 1)",
                 (NOW, "# Memory\n\n## Open loops\n- Mail jane.doe@example.com\n"))
    paths.memory_md().write_text("## Open loops\n- Mail jane.doe@example.com\n")
    set_meta(conn, "scrub_version", str(cue.pii.SCRUB_VERSION))
    monkeypatch.setattr(cue.pii, "SCRUB_VERSION", cue.pii.SCRUB_VERSION + 1)
    code, out, _ = run_cue(monkeypatch, capsysbinary, "memory", "show")
    assert code == 0 and "- Mail [EMAIL]" in out
    assert "jane.doe" not in everything_written()  # the row and memory.md, backfilled


def test_a_reply_with_no_items_never_wipes_the_memory(conn, cloud, monkeypatch, capsysbinary):
    plant(conn, "Worked on Atlas.", ended=NOW - 1800)
    cloud.reply = GOOD_REPLY
    run_cue(monkeypatch, capsysbinary, "memory")
    before = paths.memory_md().read_bytes()
    plant(conn, "Idle.", ended=NOW - 60)
    cloud.reply = "## Ongoing projects\n(no changes)\n## Open loops\n- none\n"
    code, out, err = run_cue(monkeypatch, capsysbinary, "memory")
    assert (code, out) == (5, "") and "held no memory items" in err
    assert paths.memory_md().read_bytes() == before
    assert conn.execute("SELECT count(*) FROM memory").fetchone()[0] == 1


def test_a_backlog_too_big_for_the_model_keeps_the_newest_digests(conn, monkeypatch,
                                                                  capsysbinary):
    monkeypatch.setenv("CUE_MEMORY_BACKEND", "local")
    monkeypatch.setenv("CUE_LOCAL_N_CTX", "2048")
    for i in range(40):
        plant(conn, f"Digest number {i:02d}: worked on the Atlas migration schema.",
              ended=NOW - (40 - i) * 900)
    code, out, _ = run_cue(monkeypatch, capsysbinary, "memory", "--dry-run", "-f", "json")
    plan = json.loads(out)
    assert code == 0 and plan["left_out"] > 0
    assert plan["digests"] + plan["left_out"] == 40
    assert "Digest number 39" in plan["prompt"] and "Digest number 00" not in plan["prompt"]
    assert len(plan["prompt"]) <= 4000
