"""The scrubber's cold start (issue 28): the engine builds once, with the cyclic GC paused and
switched back on after; `prewarm` builds it in the background while a digest waits for its
model, and an error there is raised by the first scrub, not lost in a thread."""
from __future__ import annotations

import gc

import pytest

from cue.core.errors import CueError
from cue.pii import engine, prewarm, scrub


@pytest.fixture
def fresh_engine():
    engine._engine.cache_clear()
    yield
    engine._engine.cache_clear()  # the next test builds its own, with its own environment


def test_prewarm_builds_in_the_background_and_scrub_uses_that_engine(fresh_engine):
    assert not engine.built()
    thread = prewarm()
    assert thread is not None
    thread.join(60)
    assert engine.built() and prewarm() is None  # built once
    assert scrub("mail jane@example.com about it") == "mail [EMAIL] about it"
    assert gc.isenabled()


def test_the_first_scrub_waits_for_a_build_under_way(fresh_engine):
    thread = prewarm()
    assert scrub("call 010-1234-5678") == "call [PHONE]"  # no join: the build lock waits
    thread.join(60)


def test_a_failed_prewarm_is_raised_by_the_first_scrub(fresh_engine, monkeypatch):
    monkeypatch.setenv("CUE_SPACY_MODEL", "no_such_spacy_model_here")
    prewarm().join(60)
    assert not engine.built()
    with pytest.raises(CueError, match="CUE_SPACY_MODEL"):
        scrub("mail jane@example.com")
    assert gc.isenabled()  # a failed build switches the collector back on too


def test_a_digest_warms_the_scrubber_while_the_model_works(fresh_engine, tmp_path, monkeypatch):
    """run_digest starts the build before the model call: when the (stub) model answers
    after 1.5 s, the scrubber is already built."""
    from stubs import OpenAIStub

    from bench.sessions import make_activity
    from cue.core import config as cue_config
    from cue.core.db import connect
    from cue.digest import run_digest
    from cue.llm.server import ServerVisionBackend

    built_when_answered = []
    complete = ServerVisionBackend.complete

    def answer_and_look(self, parts):
        reply = complete(self, parts)
        built_when_answered.append(engine.built())
        return reply

    monkeypatch.setattr(ServerVisionBackend, "complete", answer_and_look)
    monkeypatch.setenv("CUE_HOME", str(tmp_path / "home"))
    start = 1_763_766_000.0
    make_activity(tmp_path / "act", start=start, interval=30.0, size=(320, 200))
    with OpenAIStub(reply="Edited main.py in the editor, then read the design notes.",
                    delay=1.5) as stub:
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
    assert row.timings["model_ms"] >= 1500
    assert built_when_answered == [True]  # built while the model worked, not after
