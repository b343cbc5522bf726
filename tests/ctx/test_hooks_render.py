"""Fitting hand-off blocks under the hook character cap (ctx/core/text.py)."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctx.core.text import Block, fit, node_line, text_len


def test_everything_fits_without_a_left_out_line():
    text, left = fit([Block("## A", ["- one", "- two"]), Block("## B", ["- three"])], 1000, hint="H")
    assert left == 0 and text == "## A\n\n- one\n\n- two\n\n---\n\n## B\n\n- three\n\n---"


def test_items_that_do_not_fit_are_counted_and_smaller_later_ones_still_go_in():
    blocks = [Block("## A", ["- " + "x" * 300, "- short"])]
    text, left = fit(blocks, 300, hint="Fetch with ctx query.")
    assert left == 1 and "- short" in text and "x" * 50 not in text
    assert text.endswith("_1 more item left out to stay under the 300-character hook limit. "
                         "Fetch with ctx query._")


def test_a_block_whose_items_all_miss_drops_its_header():
    text, left = fit([Block("## Big", ["- " + "y" * 500]), Block("## Small", ["- ok"])], 400, hint="H")
    assert "## Big" not in text and "## Small" in text and left == 1


def test_empty_block_shows_its_empty_line():
    text, _ = fit([Block("## Recall Results", [], empty="No matching nodes found.")], 500, hint="H")
    assert text == "## Recall Results\n\nNo matching nodes found.\n\n---"


def test_node_line_format_and_preview():
    node = {"id": "01ABCDEFGH", "type": "fact", "content": "line one\nline two", "tags": ["tier:reference"]}
    assert node_line(node, "01ABCDEF") == "- [fact:01ABCDEF] line one\n  line two\n  - Tags: tier:reference"
    long = {**node, "content": "z" * 150}
    assert node_line(long, "01ABCDEF", preview=True) == "- [fact:01ABCDEF] " + "z" * 100 + "..."


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=40), st.lists(st.text(max_size=400), max_size=8)), max_size=5),
       st.integers(min_value=1, max_value=3000))
def test_never_over_the_cap(spec, cap):
    text, _ = fit([Block(h, items) for h, items in spec], cap, hint="Fetch them with ctx compose.")
    assert text_len(text) <= cap
