"""cue → ctx as real pipes between the installed console scripts: a day of digests and a
memory flow into ctx as `source:cue` nodes, `ctx search` finds a digest by what happened
in it, and the README's cron wrapper (run verbatim) adds, skips and supersedes."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from stubs import AnthropicStub

sys.path.insert(0, str(Path(__file__).parent / "cue"))  # tests/cue helpers
from bench.sessions import make_activity

ROOT = Path(__file__).resolve().parents[1]
START = 1_763_766_000.0  # 2025-11-21 23:00 UTC

# What the (stub) vision model says happened in each 5-minute window.
WINDOWS = [
    (START + 300, ("Fixed the flaky payment-webhook retry test in pytest after it kept "
                   "failing intermittently; emailed jane.doe@example.com the patch.")),
    (START + 600, ("Read the Postgres table-partitioning chapter of design.pdf and "
                   "sketched the Atlas migration plan.")),
    (START + 900, ("Answered questions about the on-call rota in the #general Slack "
                   "channel.")),
]
MEMORY_REPLY = """## Ongoing projects
- Atlas migration to Postgres partitioning (since 2025-11-21)
## Open loops
- Send the webhook patch for review
## Recurring patterns
- Checks Slack between coding sessions
## Recently finished
- Fixed the flaky payment-webhook retry test (done 2025-11-21)"""


@pytest.fixture(scope="module")
def activity(tmp_path_factory):
    return make_activity(tmp_path_factory.mktemp("activity"), start=START, interval=15.0)


@pytest.fixture
def stub():
    with AnthropicStub() as s:
        yield s


@pytest.fixture
def env(activity, stub, cue_bin):
    e = dict(os.environ)
    e.update(CUE_DIGEST_KEYFRAMES=str(activity.keyframes_dir),
             CUE_DIGEST_EVENTS=str(activity.events_dir),
             ANTHROPIC_API_KEY="sk-test-not-real", CUE_CLOUD_BASE_URL=stub.url,
             CUE_CLOUD_SEND_IMAGES="true",  # the user's yes to the cloud, given once
             PATH=f"{Path(cue_bin).parent}{os.pathsep}{e['PATH']}")
    return e


def sh(command: str, env: dict) -> subprocess.CompletedProcess:
    """A shell pipeline, failing if any stage fails (pipefail)."""
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], check=False,
                          capture_output=True, text=True, env=env, timeout=120)


def ctx_json(env: dict, *args: str):
    proc = subprocess.run(["ctx", *args, "--format", "json"], check=False,
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def add_distractors(env: dict) -> None:
    """Other memories a real store would hold, so a search has something to beat."""
    notes = ["Decided to keep the store in SQLite with WAL mode.",
             "The team standup is at 9:30 every weekday.",
             "Use ruff for linting and formatting in every repository.",
             "Deploys go out on Tuesdays and Thursdays after the release review."]
    records = "\n".join(json.dumps({"content": n, "type": "fact"}) for n in notes)
    proc = subprocess.run(["ctx", "add", "--json", "-"], input=records, check=False,
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow  # seven cue processes, each loading Presidio: ~40 s on 2 busy cores
def test_a_day_of_digests_and_the_memory_flow_into_ctx(env, stub):
    add_distractors(env)
    for end, reply in WINDOWS:
        stub.reply = reply
        pipe = sh(f"cue digest --since 5m --end {end} --format json | ctx add --json -", env)
        assert pipe.returncode == 0, pipe.stderr
    assert stub.count == 3

    observations = ctx_json(env, "query", "type:observation AND tag:source:cue")
    assert [o["content"] for o in observations] == [
        WINDOWS[0][1].replace("jane.doe@example.com", "[EMAIL]"), WINDOWS[1][1], WINDOWS[2][1]]
    assert all("cue:digest" in o["tags"] for o in observations)

    stub.reply = MEMORY_REPLY
    pipe = sh("cue memory --since 1000d --format json | ctx add --json -", env)
    assert pipe.returncode == 0, pipe.stderr
    memory_prompt = stub.requests[-1]["body"]["messages"][0]["content"]
    assert "[EMAIL]" in memory_prompt and "jane.doe" not in memory_prompt
    summaries = ctx_json(env, "query", "type:summary AND tag:source:cue")
    assert len(summaries) == 1
    memory_md = (Path(env["CUE_HOME"]) / "memory.md").read_text()
    assert summaries[0]["content"] == memory_md.strip()  # ctx trims the final newline
    assert "cue:memory" in summaries[0]["tags"]
    assert summaries[0]["metadata"]["digests"] == 3

    # ctx search finds each digest by what happened in it, in other words than it used
    for question, expected in [("debugging a test that fails now and then", 0),
                               ("splitting a database table into partitions", 1),
                               ("who is on call this week", 2)]:
        hits = ctx_json(env, "search", question, "--filter", "type:observation")
        assert hits and hits[0]["content"] == observations[expected]["content"], question
        assert hits[0]["semantic_rank"] == 1
    # and the memory summary is found by its content too
    hits = ctx_json(env, "search", "migrating Atlas to Postgres", "--filter", "type:summary")
    assert hits[0]["id"] == summaries[0]["id"]


def cron_script(tmp_path: Path) -> Path:
    """The README's cue-to-ctx wrapper, verbatim."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("<!-- section:cue-memory -->")[1].split("<!-- /section:cue-memory")[0]
    match = re.search(r"```sh\n(#!/bin/sh\n# cue-to-ctx:.*?)```", section, re.DOTALL)
    assert match, "README section cue-memory lost its cron wrapper"
    script = tmp_path / "cue-to-ctx"
    script.write_text(match[1])
    script.chmod(0o755)
    return script


@pytest.mark.slow  # ten cue processes
def test_the_readme_cron_wrapper_adds_skips_and_supersedes(env, stub, tmp_path):
    script = str(cron_script(tmp_path))

    # an empty window: cue prints nothing, the wrapper adds nothing and stays quiet
    quiet = sh(f"'{script}' digest --since 5m --end {START - 3600}", env)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    # nothing new for the memory yet: quiet too, and no model call
    quiet = sh(f"'{script}' memory", env)
    assert (quiet.returncode, quiet.stdout, quiet.stderr, stub.count) == (0, "", "", 0)

    for end, reply in WINDOWS[:2]:
        stub.reply = reply
        run = sh(f"'{script}' digest --since 5m --end {end}", env)
        assert (run.returncode, run.stdout, run.stderr) == (0, "", ""), run.stderr
    stub.reply = MEMORY_REPLY
    first = sh(f"'{script}' memory --since 1000d", env)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", ""), first.stderr

    stub.reply = WINDOWS[2][1]
    assert sh(f"'{script}' digest --since 5m --end {WINDOWS[2][0]}", env).returncode == 0
    stub.reply = MEMORY_REPLY.replace("Checks Slack", "Answers on-call questions in Slack")
    second = sh(f"'{script}' memory", env)  # reads only the digest that is new
    assert (second.returncode, second.stderr) == (0, ""), second.stderr
    assert "on-call rota" in stub.requests[-1]["body"]["messages"][0]["content"]
    assert "payment-webhook" not in stub.requests[-1]["body"]["messages"][0]["content"] \
        .split("<digests>")[1]

    live = ctx_json(env, "query", "tag:cue:memory")
    assert len(live) == 1 and "Answers on-call questions" in live[0]["content"]
    everything = ctx_json(env, "query", "tag:cue:memory", "--include-superseded")
    assert len(everything) == 2
    assert len(ctx_json(env, "query", "type:observation AND tag:source:cue")) == 3

    # a model failure is one line for cron to mail, and the previous memory stays
    sh(f"'{script}' digest --since 5m --end {START + 450}", env)  # something new to read
    stub.status = 500
    failed = sh(f"'{script}' memory", env)
    assert failed.returncode == 5 and failed.stderr.startswith("Error: memory not updated")
    assert len(ctx_json(env, "query", "tag:cue:memory")) == 1
