"""Chunking: paragraphs → sentences → ~500 characters, as offsets into the text."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctx.semantic.chunk import MAX_CHARS, MIN_CHARS, chunk_text


def test_short_text_is_one_chunk():
    chunks = chunk_text("  Use WAL mode.  ")
    assert [(c.start, c.end, c.text) for c in chunks] == [(2, 15, "Use WAL mode.")]


def test_each_paragraph_is_its_own_chunk():
    a = ("First paragraph, about the database: how its single writer and its many readers "
         "share one file safely in WAL mode.")
    b = ("Second paragraph, on a different subject entirely: the billing worker, its retry "
         "policy and the invoices it marks uncollectible.")
    assert len(a) > MIN_CHARS and len(b) > MIN_CHARS
    chunks = chunk_text(f"{a}\n\n{b}")
    assert [c.text for c in chunks] == [a, b]


def test_a_tiny_paragraph_joins_the_next():
    body = "The body of the note is long enough to stand on its own as a chunk, well over the minimum."
    chunks = chunk_text(f"## Notes\n\n{body}")
    assert len(chunks) == 1 and chunks[0].text.startswith("## Notes") and chunks[0].text.endswith("minimum.")


def test_long_paragraph_splits_at_sentences_and_packs_to_the_limit():
    sentence = "Readers never block the writer in WAL mode. "
    text = sentence * 40  # ~1,760 chars, one paragraph
    chunks = chunk_text(text)
    assert len(chunks) == 4
    for c in chunks:
        assert len(c.text) <= MAX_CHARS
        assert c.text.endswith(".")  # cut between sentences, not inside one
        assert c.text == text[c.start:c.end]


def test_a_sentence_longer_than_the_limit_is_cut_at_a_space():
    text = " ".join(["word"] * 300)  # 1,499 chars, no full stop
    chunks = chunk_text(text)
    assert all(len(c.text) <= MAX_CHARS for c in chunks)
    assert all(not c.text.startswith(" ") and not c.text.endswith(" ") for c in chunks)
    assert " ".join(c.text for c in chunks) == text


def test_lines_count_as_sentences_in_long_lists():
    text = "\n".join(f"- item {i}: a line of a long list without any full stops" for i in range(30))
    chunks = chunk_text(text)
    assert len(chunks) > 1
    assert all(c.text.startswith("- item") for c in chunks)


def test_empty_or_blank_text_has_no_chunks():
    assert chunk_text("") == []
    assert chunk_text(" \n\n \t") == []


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .\n한"), max_size=2000))
def test_chunks_are_ordered_disjoint_spans_within_the_limit(text):
    chunks = chunk_text(text)
    prev_end = 0
    for i, c in enumerate(chunks):
        assert c.idx == i
        assert prev_end <= c.start < c.end <= len(text)
        assert c.text == text[c.start:c.end] and c.text.strip() == c.text
        assert len(c.text) <= MAX_CHARS
        prev_end = c.end
    # nothing but whitespace is left out
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    assert all(text[i].isspace() for i in range(len(text)) if i not in covered)
    assert MIN_CHARS < MAX_CHARS
