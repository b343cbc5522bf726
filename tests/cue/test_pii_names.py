"""English names without a title, found without a spaCy model (cue/pii/finders/names.py),
through the real Presidio engine: in window titles and prose, and capitalised words that are
not people left alone."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from bench.pii_eval import evaluate, load
from cue.pii import scrub
from cue.pii.finders import names

NAMES_TUNE = Path(__file__).parent / "data" / "pii_names_tune.jsonl"


@pytest.mark.parametrize("text,name", [
    ("Jennifer Alvarez - Slack", "Jennifer Alvarez"),
    ("John Smith - Slack", "John Smith"),
    ("Replied to an email from Laura Schmidt about the budget.", "Laura Schmidt"),
    ("Read Rachel Green's comment on the doc.", "Rachel Green"),
    ("Edited the doc that Will Turner shared.", "Will Turner"),
    ("attendees: Hannah Fischer, Lucas Moreau", "Lucas Moreau"),
    ("José García - Slack", "José García"),  # accented, from Faker's Spanish data
    ("Call with Wei Zhang about the rollout", "Wei Zhang"),  # romanized zh_CN data
])
def test_an_untitled_english_name_is_scrubbed(text, name):
    out = scrub(text)
    assert name not in out and name.split()[0] not in out, out


@pytest.mark.parametrize("text", [
    "Grant Access to the staging bucket",
    "Max Connections reached on the primary replica",
    "Ruby Gems mirror is down again",
    "Park Avenue Plaza parking garage",
    "Pull Request #412 - GitLab",
    "Will Update the Release Notes",
    "Star Wars",  # alone on a line, like a window title: an everyday first word, no surname
    "Long Beach",
    "Summer Sale - Shopify",
])
def test_capitalised_words_that_are_not_people_stay(text):
    assert scrub(text) == text


def test_the_names_tune_half_holds():
    ev = evaluate(load(NAMES_TUNE))
    assert ev.recall("PERSON") == 1.0
    assert ev.false_positives == []


def test_the_lexicon_is_cached_as_json_and_a_bad_cache_is_rebuilt(monkeypatch):
    built = names._build()
    path = names._cache_path()
    assert path.parent == Path(os.environ["CUE_HOME"]) / "cache"
    names._data.cache_clear()
    try:
        assert names._data() == built and path.exists()  # written on first use
        monkeypatch.setattr(names, "_build", lambda: pytest.fail("rebuilt a good cache"))
        names._data.cache_clear()
        assert names._data() == built  # read back, Faker not imported again
        monkeypatch.undo()
        for bad in ("not json", "[1, 2, 3]", '[["a"], ["b"]]'):
            path.write_text(bad, encoding="utf-8")
            names._data.cache_clear()
            assert names._data() == built
    finally:
        names._data.cache_clear()
