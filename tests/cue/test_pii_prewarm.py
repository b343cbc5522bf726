"""The scrubber's cold start (issue 28): the engine builds once, with the cyclic GC paused and
switched back on after; `prewarm` builds it in a child process (cue.pii.worker) while a
digest selects frames and waits for its model, the child's findings are this process's, and
a child that cannot answer leaves the scrub to this process — which raises what went wrong
rather than let text through."""
from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from cue.core.errors import CueError
from cue.pii import analyze, engine, prewarm, scrub, worker

DEV_SET = Path(__file__).parent / "data" / "pii_dev.jsonl"


@pytest.fixture
def fresh_engine():
    worker.stop()
    engine._engine.cache_clear()
    yield
    worker.stop()
    engine._engine.cache_clear()  # the next test builds its own, with its own environment


def test_prewarm_builds_in_a_child_and_scrub_asks_it(fresh_engine):
    assert prewarm() is True and worker.running()
    assert prewarm() is True  # one child per process
    assert scrub("mail jane@example.com or call 010-1234-5678") == "mail [EMAIL] or call [PHONE]"
    assert not engine.built()  # this process never built Presidio's engine
    assert "presidio_analyzer" not in {m.split(".")[0] for m in _loaded_by_scrub()}


def _loaded_by_scrub() -> set[str]:
    """Modules a fresh interpreter loads to prewarm and scrub through a child."""
    import subprocess
    import sys

    code = ("import sys; from cue.pii import prewarm, scrub; prewarm(); "
            "assert scrub('jane@example.com') == '[EMAIL]'; print('\\n'.join(sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return set(out.split())


def test_the_child_finds_what_this_process_finds(fresh_engine):
    texts = [json.loads(line)["text"] for line in DEV_SET.read_text().splitlines()[::7]]
    assert len(texts) > 50
    prewarm()
    remote = [worker.find(t) for t in texts]
    worker.stop()
    assert remote == [engine.find(t) for t in texts]  # same spans, types and scores


def test_no_child_once_this_process_has_built(fresh_engine):
    engine.engine()
    assert prewarm() is False and not worker.running()


def test_a_child_that_cannot_build_leaves_the_error_to_this_process(fresh_engine, monkeypatch):
    monkeypatch.setenv("CUE_SPACY_MODEL", "no_such_spacy_model_here")
    assert prewarm()
    with pytest.raises(CueError, match="CUE_SPACY_MODEL"):
        scrub("mail jane@example.com")
    assert not worker.running()  # dropped: this process builds (and raised) instead
    assert gc.isenabled()  # a failed build switches the collector back on


def test_a_child_that_dies_is_replaced_by_this_process(fresh_engine):
    prewarm()
    worker._proc.kill()
    worker._proc.wait()
    assert scrub("mail jane@example.com") == "mail [EMAIL]"
    assert not worker.running() and engine.built()


def test_tokens_are_kept_through_the_child(fresh_engine):
    prewarm()
    assert analyze("[EMAIL] wrote to [PERSON]") == []
    assert scrub(scrub("jane@example.com")) == "[EMAIL]"


def test_a_digest_scrubs_through_the_child(fresh_engine, tmp_path, monkeypatch):
    """run_digest starts the child first; the model's answer is scrubbed by it, and this
    process never imports Presidio."""
    from stubs import OpenAIStub

    from bench.sessions import make_activity
    from cue.core import config as cue_config
    from cue.core.db import connect
    from cue.digest import run_digest

    monkeypatch.setenv("CUE_HOME", str(tmp_path / "home"))
    start = 1_763_766_000.0
    make_activity(tmp_path / "act", start=start, interval=30.0, size=(320, 200))
    with OpenAIStub(reply="Edited main.py in the editor, then wrote to jane@example.com.",
                    delay=0.5) as stub:
        config = cue_config.load(env={}).replace(digest__backend="server",
                                                 server__url=stub.url + "/v1")
        conn = connect()
        try:
            row = run_digest(conn, config, window_secs=900.0, end=start + 900,
                             keyframe_dir=tmp_path / "act" / "keyframes",
                             events_dir=tmp_path / "act" / "events")
        finally:
            conn.close()
    assert row.status == "ok", row.reason
    assert row.summary == "Edited main.py in the editor, then wrote to [EMAIL]."
    assert worker.running() and not engine.built()
