"""Presidio without spaCy (cue.pii.load, issue 28): with no spaCy model, Presidio is imported
with stand-ins for the few spaCy names its NLP-engine modules bind as they load, for its URL
recognizer (which cue does not register) and for its configuration models, so spaCy, thinc,
numpy and pydantic never load and the URL patterns never compile — and the scrubber finds
exactly what it finds with the usual import. Where the stand-ins cannot apply, Presidio is
imported as usual. Each case runs in a fresh interpreter: an import can be tried only once
per process."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
SETS = [DATA / name for name in ("pii_labelled.jsonl", "pii_dev.jsonl", "pii_probe.jsonl")]
URL_MODULE = "presidio_analyzer.predefined_recognizers.generic.url_recognizer"
HEAVY = ("spacy", "thinc", "numpy", "weasel", "typer", "pydantic", URL_MODULE)

# Scrubs and raw findings for every text of the given sets; "usual" imports spaCy first,
# which leaves Presidio's usual import as the only way (cue.pii.load applies only before).
_FIND_ALL = f"""
import json, sys
if sys.argv[1] == "usual":
    import spacy
from cue.pii import engine, scrub
texts = [json.loads(line)["text"] for path in sys.argv[2:]
         for line in open(path, encoding="utf-8")]
out = [[scrub(t), [[e.type, e.start, e.end, e.score] for e in engine.find(t)]] for t in texts]
print(json.dumps({{"loaded": [m for m in {HEAVY!r} if m in sys.modules], "out": out}}))
"""


def _python(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _result(proc: subprocess.Popen):
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return json.loads(out)


def test_without_spacy_every_labelled_dev_and_probe_text_scrubs_the_same():
    fast, usual = (_python(_FIND_ALL, how, *map(str, SETS)) for how in ("fast", "usual"))
    fast, usual = _result(fast), _result(usual)
    assert fast["loaded"] == []  # no spaCy, thinc, numpy, pydantic, URL patterns
    assert "spacy" in usual["loaded"]  # the comparison is with Presidio's usual import
    assert len(fast["out"]) == sum(len(p.read_text().splitlines()) for p in SETS) > 1000
    assert fast["out"] == usual["out"]  # byte for byte, span for span, score for score


def _run(code: str) -> dict:
    return _result(_python("import json, sys\n" + code))


def _loaded() -> str:
    return "print(json.dumps([m for m in ('spacy', 'thinc') if m in sys.modules]))"


def test_the_stand_ins_are_gone_after_and_a_later_spacy_engine_is_real(tmp_path):
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    nlp.add_pipe("entity_ruler").add_patterns(
        [{"label": "PERSON", "pattern": [{"LOWER": "alice"}, {"LOWER": "johnson"}]}])
    nlp.to_disk(tmp_path / "people")
    code = f"""
from cue.pii import engine
engine.engine()
assert "spacy" not in sys.modules
analyzer = engine.build_engine({str(tmp_path / "people")!r})  # spaCy, pydantic only now
text = "Alice Johnson wrote"
found = [(r.entity_type, text[r.start:r.end]) for r in analyzer.analyze(text=text, language="en")]
import spacy, spacy.tokens
from presidio_analyzer.nlp_engine import spacy_nlp_engine
assert spacy_nlp_engine.spacy.load is spacy.load  # Presidio's reference reaches real spaCy
assert spacy.tokens.Doc.__module__ == "spacy.tokens.doc"  # no stand-in left in sys.modules
from presidio_analyzer.nlp_engine import ner_model_configuration as real
assert type(analyzer.nlp_engine.ner_model_configuration) is real.NerModelConfiguration
print(json.dumps(found))
"""
    assert _run(code) == [["PERSON", "Alice Johnson"]]


def test_presidios_url_recognizer_is_real_when_used():
    code = """
from cue.pii import engine
engine.engine()
from presidio_analyzer.predefined_recognizers import UrlRecognizer
from presidio_analyzer.predefined_recognizers.generic import url_recognizer
recognizer = UrlRecognizer(supported_language="en")
assert type(recognizer) is url_recognizer.UrlRecognizer and recognizer.patterns
try:
    type("Mine", (UrlRecognizer,), {})
except TypeError:
    pass
else:
    raise AssertionError("a subclass of the stand-in would not be a UrlRecognizer")
text = "read https://docs.python.org/3/ today"
print(json.dumps([text[r.start:r.end] for r in recognizer.analyze(text, ["URL"])]))
"""
    assert _run(code) == ["https://docs.python.org/3/"]


def test_presidios_configuration_classes_are_real_when_used(tmp_path):
    """Building from configuration (Presidio's providers) reaches the real pydantic models
    through the stand-ins: class attributes and instances are the real classes'."""
    code = f"""
from cue.pii import engine
engine.engine()
assert "pydantic" not in sys.modules
from presidio_analyzer import analyzer_engine_provider as provider
from presidio_analyzer.nlp_engine import NerModelConfiguration, nlp_engine_provider
bad = {str(tmp_path / "missing.yaml")!r}
try:
    provider.ConfigurationValidator.validate_file_path(bad)  # a static method, forwarded
except Exception as exc:
    error = type(exc).__name__
conf = nlp_engine_provider.NerModelConfiguration.from_dict({{"labels_to_ignore": ["O"]}})
print(json.dumps([error, type(conf).__module__, NerModelConfiguration().labels_to_ignore]))
"""
    error, module, ignored = _run(code)
    assert error == "ValueError"  # "Configuration file does not exist"
    assert module == "presidio_analyzer.nlp_engine.ner_model_configuration"
    assert isinstance(ignored, list)


@pytest.mark.parametrize("change", [
    "load._SERVED = dict(load._SERVED, **{'spacy.tokens': ('Doc', 'Token')})",  # wants Span
    "load._SERVED = dict(load._SERVED, **{load._URL: ()})",  # wants UrlRecognizer
    "load._HOLDERS = load._HOLDERS - {'presidio_analyzer.nlp_engine.nlp_artifacts'}",
    "load._HOLDERS = load._HOLDERS - {'presidio_analyzer.predefined_recognizers.generic'}",
    "load._HOLDERS = load._HOLDERS - {'presidio_analyzer.analyzer_engine_provider'}",
])
def test_a_presidio_that_needs_more_of_spacy_is_imported_as_usual(change):
    """A Presidio that takes a name the stand-ins do not serve, or keeps a stand-in
    elsewhere than its NLP engines: everything that import loaded is forgotten, Presidio is
    imported with spaCy, and the engine scrubs as ever."""
    code = f"""
from cue.pii import load
{change}
from cue.pii import scrub
assert scrub("mail jane@example.com or 010-1234-5678") == "mail [EMAIL] or [PHONE]"
from presidio_analyzer.nlp_engine import nlp_artifacts
import spacy.tokens
assert nlp_artifacts.Span is spacy.tokens.Span  # the real one, not a stand-in's
{_loaded()}
"""
    assert _run(code) == ["spacy", "thinc"]


@pytest.mark.parametrize("setup", [
    "load.import_presidio('en_core_web_sm')",  # an engine with a spaCy model
    ("import threading; threading.Thread(target=threading.Event().wait, daemon=True).start();"
     " load.import_presidio(None)"),  # another thread could import spaCy meanwhile
])
def test_with_a_model_or_other_threads_presidio_is_imported_as_usual(setup):
    assert _run(f"from cue.pii import load\n{setup}\n{_loaded()}") == ["spacy", "thinc"]
