"""A private key whose body follows its BEGIN line on the same line — text lifted off a
screen (OCR, a terminal's soft wrap, a title) loses the newlines (issue 25)."""
from __future__ import annotations

from cuectx.secrets import find, redact

BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQy"


def _found(text):
    return [(f.kind, text[f.start:f.end]) for f in find(text)]


def test_body_on_the_begin_line_up_to_the_end_marker():
    block = f"-----BEGIN OPENSSH PRIVATE KEY----- {BODY} {BODY[::-1]} -----END OPENSSH PRIVATE KEY-----"
    assert _found(f"id_ed25519 — vim: {block} then pushed") == [("private-key", block)]


def test_cut_off_body_on_the_begin_line_stops_at_the_first_word():
    text = f"-----BEGIN RSA PRIVATE KEY----- {BODY} then ran ssh-add"
    assert redact(text) == "[SECRET:private-key] then ran ssh-add"


def test_body_starting_on_the_begin_line_and_going_on_below():
    text = f"-----BEGIN PRIVATE KEY----- {BODY}\n{BODY}\n-----END PRIVATE KEY-----\nok"
    assert redact(text) == "[SECRET:private-key]\nok"


def test_words_after_a_begin_marker_are_not_a_key():
    for text in ("-----BEGIN PRIVATE KEY----- handling notes", "BEGIN PRIVATE KEY handling",
                 "-----BEGIN CERTIFICATE----- MIIBszCCAVmgAwIBAgIU"):
        assert find(text) == [], text
