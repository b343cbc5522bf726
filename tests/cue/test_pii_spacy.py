"""With a spaCy model installed, its PERSON entities are scrubbed too.

No spaCy model can be installed from the registry here, so the test saves a real spaCy
pipeline (blank English + an entity ruler that knows one name) and points
CUE_SPACY_MODEL at it, which is the same path `spacy.load` takes for an installed model.
"""
from __future__ import annotations

import pytest

from cue.pii import engine


@pytest.fixture
def ruler_model(tmp_path):
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns([{"label": "PERSON", "pattern": [{"LOWER": "alice"}, {"LOWER": "johnson"}]}])
    path = tmp_path / "en_test_people"
    nlp.to_disk(path)
    return str(path)


def test_spacy_model_names_are_found(ruler_model, monkeypatch):
    monkeypatch.setenv("CUE_SPACY_MODEL", ruler_model)
    assert engine.spacy_model() == ruler_model
    analyzer = engine.build_engine(engine.spacy_model())
    text = "Alice Johnson reviewed PR 12 with jane@example.com"
    found = {(r.entity_type, text[r.start:r.end])
             for r in analyzer.analyze(text=text, language="en",
                                       score_threshold=engine.SCORE_THRESHOLD)}
    assert ("PERSON", "Alice Johnson") in found
    assert ("EMAIL_ADDRESS", "jane@example.com") in found


def test_without_a_model_the_engine_needs_no_spacy_pipeline(monkeypatch):
    monkeypatch.setenv("CUE_SPACY_MODEL", "none")
    assert engine.spacy_model() is None
    analyzer = engine.build_engine(None)
    assert type(analyzer.nlp_engine).__name__ == "NullNlpEngine"
    text = "Alice Johnson mailed jane@example.com"
    found = {r.entity_type: r.recognition_metadata["recognizer_name"]
             for r in analyzer.analyze(text=text, language="en")}
    # the name comes from the name finder (cue/pii/finders/names.py), not from spaCy
    assert found == {"EMAIL_ADDRESS": found["EMAIL_ADDRESS"], "PERSON": "EnglishNameRecognizer"}


def test_a_model_that_tags_token_words_cannot_break_idempotence(tmp_path, monkeypatch):
    spacy = pytest.importorskip("spacy")
    import cue.pii
    from cue.pii import scrub

    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns([
        {"label": "PERSON", "pattern": [{"LOWER": "alice"}]},
        {"label": "PERSON", "pattern": [{"LOWER": "person"}]},  # a careless model
    ])
    nlp.to_disk(tmp_path / "m")
    analyzer = engine.build_engine(str(tmp_path / "m"))
    monkeypatch.setattr(engine, "engine", lambda: analyzer)
    once = scrub("Alice met [PERSON] today")
    assert once == "[PERSON] met [PERSON] today"
    assert scrub(once) == once
    assert cue.pii.analyze(once) == []
