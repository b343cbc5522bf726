"""Presidio's AnalyzerEngine, built explicitly so it runs offline, once per process.

`AnalyzerEngine()` with defaults wants a spaCy model (none is installable from the
registry here) and would let tldextract fetch the public-suffix list. So:
- the NLP engine is a no-op unless a spaCy model is installed (`en_core_web_{lg,md,sm,trf}`,
  or `CUE_SPACY_MODEL=<name or path>`; `CUE_SPACY_MODEL=none` turns it off); with a model,
  spaCy's PERSON entities are used for names;
- tldextract runs from its bundled snapshot (`suffix_list_urls=()`, no cache dir);
- Presidio's recognizers are registered by hand, the Korean RRN one for our language,
  phones for KR as well as the usual regions.
"""
from __future__ import annotations

import gc
import importlib.util
import re
import threading
from functools import cache
from pathlib import Path

from cue.core import settings
from cue.core.errors import CueError
from cue.pii.entities import Entity

LANGUAGE = "en"
# Below this Presidio score a finding is dropped (Presidio's phone matches score 0.4;
# its "very weak" SSN and IPv6 "::" patterns score 0.05–0.1).
SCORE_THRESHOLD = 0.4
PHONE_REGIONS = ("US", "GB", "KR", "DE", "FR", "IN", "AU")
SPACY_MODELS = ("en_core_web_lg", "en_core_web_md", "en_core_web_sm", "en_core_web_trf")


CHUNK_CHARS = 8192
_PRIVATE_KEY_BLOCK = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[\s\S]*?(?:-----END|\n[ \t]*\n|\Z)")


def find(text: str, depth: int = 0) -> list[Entity]:
    """All raw findings in `text` (possibly overlapping) as Entities: Presidio's analysis,
    then the passes that look through the text (cue.pii.encoded: base64 and
    percent-encoded spans decoded, keys and card numbers broken across lines rejoined).
    `depth` bounds how deep decoded text is searched again."""
    from cue.pii import encoded

    found = find_direct(text)
    if depth < encoded.MAX_DEPTH:
        found += encoded.base64_findings(text, find, depth)
        if "%" in text:
            found += encoded.percent_findings(text, find, depth)
        found += encoded.broken_line_findings(text, find, depth)
    return found


def find_direct(text: str) -> list[Entity]:
    """Presidio's findings in `text` as Entities.

    Long text is analyzed in line-aligned chunks: Presidio's duplicate removal is
    quadratic in the number of findings, and no finding crosses a line except a private
    key block, which a chunk never splits.
    """
    analyzer = engine()
    found = []
    for start, end in chunks(text):
        for r in analyzer.analyze(text=text[start:end], language=LANGUAGE,
                                  score_threshold=SCORE_THRESHOLD):
            if r.entity_type == "PHONE_NUMBER" and _id_number(text, start + r.start):
                continue
            found.append(Entity(r.entity_type, start + r.start, start + r.end, float(r.score)))
    return found


# "INV-2026-004512", "ORD_5551234567": digits glued to a letter prefix are an identifier's
# number, not a phone — unless a phone word stands just before it.
_ID_PREFIX = re.compile(r"[A-Za-z]{2,}[-_#]$")


def _id_number(text: str, start: int) -> bool:
    from cue.pii.finders.numbers import phone_word_before

    return bool(_ID_PREFIX.search(text, max(0, start - 12), start)) and not phone_word_before(text, start)


def chunks(text: str, size: int = CHUNK_CHARS) -> list[tuple[int, int]]:
    """(start, end) spans covering `text`, each ending at a newline where possible."""
    if len(text) <= size:
        return [(0, len(text))]
    keep_whole = [m.span() for m in _PRIVATE_KEY_BLOCK.finditer(text)]
    spans, start = [], 0
    while start < len(text):
        cut = text.find("\n", start + size)
        end = len(text) if cut == -1 else cut + 1
        for ks, ke in keep_whole:
            if ks < end < ke:
                end = ke
        spans.append((start, end))
        start = end
    return spans


def spacy_model() -> str | None:
    """The spaCy model to use for names, or None (the default: no model is installed)."""
    env = settings.spacy_model()
    if env:
        if env.lower() == "none":
            return None
        if not _installed(env):  # spaCy would try to download it: never at run time
            raise CueError(f"CUE_SPACY_MODEL={env} is neither an installed spaCy model nor a "
                           "model folder; install it, or set CUE_SPACY_MODEL=none to scrub "
                           "without one")
        return env
    for name in SPACY_MODELS:
        if importlib.util.find_spec(name) is not None:
            return name
    return None


def _installed(model: str) -> bool:
    if Path(model).expanduser().is_dir():
        return True
    try:
        return model.isidentifier() and importlib.util.find_spec(model) is not None
    except (ImportError, ValueError):
        return False


_BUILD_LOCK = threading.Lock()


@cache
def _engine():
    # Presidio's import (pydantic, tldextract; spaCy and thinc too with a model) and the
    # engine's build allocate many thousands of objects that live as long as the process;
    # the cyclic garbage collector would scan them again and again while they are made.
    # So it pauses for the build, and what the build made is frozen out of every later
    # collection (gc.freeze): nothing of it is garbage.
    paused = gc.isenabled()
    gc.disable()
    try:
        from cue.pii.load import import_presidio

        model = spacy_model()
        import_presidio(model)  # without spaCy when there is no model (cue.pii.load)
        return build_engine(model)
    finally:
        gc.freeze()
        if paused:
            gc.enable()


def built() -> bool:
    """Whether this process has built its engine already."""
    return _engine.cache_info().currsize > 0


def engine():
    """The process-wide AnalyzerEngine (built on first use, once even across threads)."""
    with _BUILD_LOCK:
        return _engine()


def build_engine(model: str | None = None):
    import tldextract
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry

    from cue.pii.finders import recognizers as cue_recognizers

    offline_tld = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)
    registry = RecognizerRegistry(supported_languages=[LANGUAGE])
    for recognizer in [
        cue_recognizers.OfflineEmailRecognizer(offline_tld, supported_language=LANGUAGE),
        cue_recognizers.CandidatePhoneRecognizer(supported_language=LANGUAGE,
                                                 supported_regions=PHONE_REGIONS),
        cue_recognizers.KoCreditCardRecognizer(supported_language=LANGUAGE),
        cue_recognizers.KoIbanRecognizer(supported_language=LANGUAGE),
        cue_recognizers.PreciseIpRecognizer(supported_language=LANGUAGE),
        cue_recognizers.KoUsSsnRecognizer(supported_language=LANGUAGE),
        cue_recognizers.StrictKrRrnRecognizer(supported_language=LANGUAGE),
        *cue_recognizers.custom_recognizers(LANGUAGE),
        *context_recognizers(LANGUAGE),
    ]:
        registry.add_recognizer(recognizer)

    if model:
        from presidio_analyzer.nlp_engine import SpacyNlpEngine
        from presidio_analyzer.predefined_recognizers import SpacyRecognizer

        nlp_engine = SpacyNlpEngine(models=[{"lang_code": LANGUAGE, "model_name": model}])
        registry.add_recognizer(SpacyRecognizer(supported_language=LANGUAGE,
                                                supported_entities=["PERSON"]))
    else:
        nlp_engine = _null_nlp_engine()
    return AnalyzerEngine(registry=registry, nlp_engine=nlp_engine,
                          supported_languages=[LANGUAGE],
                          default_score_threshold=SCORE_THRESHOLD)


def context_recognizers(language: str = "en") -> list:
    """Recognizers that need a phrase around the entity or a URL's shape (issue 17):
    Korean addresses and names without honorifics, capability URLs, meeting IDs and
    passcodes, obfuscated emails, bare SSNs next to the word SSN, passport numbers, card
    security codes and dates of birth after their labels; and the card, phone and
    RRN shapes Presidio's own recognizers turn away (cue.pii.finders.numbers, korean); and
    passwords given as command-line arguments (cuectx.secret_commands' parser)."""
    from cue.pii.finders import korean, names, numbers, phrases, urls
    from cue.pii.finders.secrets import find_command_passwords
    from cue.pii.finders.spans import FunctionRecognizer

    def rec(name, entity, finder, score, trigger=None):
        return FunctionRecognizer(name, entity, finder, score, trigger=trigger,
                                  language=language)

    return [
        rec("KrAddressRecognizer", "ADDRESS", korean.find_kr_addresses, 0.8,
            korean.HANGUL_TRIGGER),
        rec("KrRomanAddressRecognizer", "ADDRESS", korean.find_kr_roman_addresses, 0.8,
            korean.ROMAN_ADDRESS_TRIGGER),
        rec("LuhnCardRecognizer", "CREDIT_CARD", numbers.find_cards, 0.7, numbers.CARD_TRIGGER),
        rec("NanpPhoneRecognizer", "PHONE_NUMBER", numbers.find_nanp_phones, 0.6,
            numbers.PHONE_TRIGGER),
        rec("KrRrnShapeRecognizer", "KR_RRN", korean.find_rrn_shapes, 0.6, korean.RRN_TRIGGER),
        rec("KrContextNameRecognizer", "PERSON", korean.find_kr_names, 0.75,
            korean.HANGUL_TRIGGER),
        rec("EnglishNameRecognizer", "PERSON", names.find_names, 0.6, names.TRIGGER),
        rec("CapabilityUrlRecognizer", "CAPABILITY_URL", urls.find_capability_urls, 0.9,
            urls.URL_TRIGGER),
        rec("MeetingCodeRecognizer", "MEETING_CODE", phrases.find_meeting_codes, 0.9,
            phrases.MEETING_TRIGGER),
        rec("ObfuscatedEmailRecognizer", "EMAIL_ADDRESS", phrases.find_obfuscated_emails, 0.8,
            phrases.OBFUSCATED_EMAIL_TRIGGER),
        rec("ContextSsnRecognizer", "US_SSN", phrases.find_context_ssns, 0.85,
            phrases.SSN_TRIGGER),
        rec("PassportRecognizer", "PASSPORT", phrases.find_passports, 0.85,
            phrases.PASSPORT_TRIGGER),
        rec("CardCodeRecognizer", "CARD_CVV", phrases.find_card_codes, 0.85,
            phrases.CARD_CODE_TRIGGER),
        rec("BirthDateRecognizer", "DATE_OF_BIRTH", phrases.find_birth_dates, 0.85,
            phrases.BIRTH_DATE_TRIGGER),
        # `mysql -pS3cret`, `sshpass -p …`, `redis-cli -a …`: the shared detector's parser
        # (ctx's guard uses it too); it searches for a program's name first.
        rec("CommandPasswordRecognizer", "SECRET", find_command_passwords, 0.9),
    ]


def _null_nlp_engine():
    """An NLP engine that finds nothing: pattern recognizers need no tokens or lemmas."""
    from presidio_analyzer.nlp_engine import NlpArtifacts, NlpEngine

    class NullNlpEngine(NlpEngine):
        def load(self) -> None:
            pass

        def is_loaded(self) -> bool:
            return True

        def process_text(self, text: str, language: str) -> NlpArtifacts:
            return NlpArtifacts(entities=[], tokens=None, tokens_indices=[], lemmas=[],
                                nlp_engine=self, language=language)

        def process_batch(self, texts, language, batch_size=1, n_process=1, **kwargs):
            for text in texts:
                yield text, self.process_text(text, language)

        def is_stopword(self, word: str, language: str) -> bool:
            return False

        def is_punct(self, word: str, language: str) -> bool:
            return False

        def get_supported_entities(self) -> list[str]:
            return []

        def get_supported_languages(self) -> list[str]:
            return [LANGUAGE]

    return NullNlpEngine()
