"""What counts as a narrative (cue.digest.plausible), and that a failed digest stays out of
everything built from digests (issue 25: the tiny Gemma's gibberish reached memory.md)."""
from __future__ import annotations

import pytest
from stubs import OpenAIStub

from bench.sessions import make_activity
from cue.core import config as cue_config
from cue.digest import run_digest
from cue.digest.memory import recent_digests
from cue.digest.plausible import implausible

START = 1_763_766_000.0

NARRATIVES = [
    "The user edited main.py in VS Code, ran pytest (42 passed) and pushed branch issue-25.",
    "Worked on main.py in Code, then read design.pdf.",
    "Reviewed a billing dashboard in Firefox.",
    "사용자는 VS Code에서 main.py를 수정하고 테스트를 실행한 뒤 Slack에서 배포 일정을 논의했다.",
    ("In a terminal the user ran `git rebase main`, fixed two conflicts in cue/record/x11.py and "
    "ran the suite; later they read PR #412 on GitHub and replied to a comment about CI."),
    "They read SPEC.md §4.1 (capture) and 3 issues, then wrote notes in Obsidian.",
]
# What the tiny random-weight Gemma and broken set-ups answer.
GARBAGE = {
    "\x9fCH=m||7Qy(5O:} titleh||_7||P readingb=m!P{xp": "control",
    "R:}\nR:}\nR:}\nm rqvR:} titlehp ! !PI|s 7Q<a$,Rj:} titleh||`||= j ahh_7|`I|yI|y": "not letters",
    "Done.": "too short",
    "the the the the the the the the the the the the": "one word",
    "screen window screen window screen window screen window screen window screen": "one word",
    "Edited the report report report report in the editor and then closed the window after saving it.": "in a row",
    "xq zvbn qrst plmk wxyz bcdf ghjk": "words of a language",
    ("The user edited a file. " * 40): "repeats itself",
}


@pytest.mark.parametrize("text", NARRATIVES)
def test_narratives_pass(text):
    assert implausible(text) is None


@pytest.mark.parametrize("text,why", GARBAGE.items())
def test_garbage_is_named(text, why):
    reason = implausible(text)
    assert reason is not None and why in reason, reason


def test_a_failed_digest_never_reaches_memory_or_suggest(conn, tmp_path):
    activity = make_activity(tmp_path / "activity", start=START, interval=15.0)
    config = cue_config.load(env={})
    good = "The user reviewed a pull request in Firefox and ran the tests in a terminal."
    with OpenAIStub(reply=good) as ok_server, OpenAIStub(reply="R:} !PI|s 7Q<a$ ||= j") as bad:
        kept = run_digest(conn, config.replace(digest__backend="server",
                                               server__url=ok_server.url + "/v1"),
                          window_secs=activity.window_secs, end=activity.end,
                          keyframe_dir=activity.keyframes_dir, events_dir=activity.events_dir)
        failed = run_digest(conn, config.replace(digest__backend="server",
                                                 server__url=bad.url + "/v1"),
                            window_secs=activity.window_secs, end=activity.end + 1,
                            keyframe_dir=activity.keyframes_dir,
                            events_dir=activity.events_dir)
    assert kept.status == "ok" and failed.status == "failed"
    assert [d.id for d in recent_digests(conn)] == [kept.id]
