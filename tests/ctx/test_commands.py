"""The <ctx:…> tag parser (SPEC §2.6, seed §11, §16)."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ctx.claude.tags import code_spans, parse


def names(text: str) -> list[str]:
    return [c.name for c in parse(text).commands]


def test_every_command_of_the_spec_parses():
    text = """Sure.
<ctx:remember type="decision" tags="tier:reference, project:api">Use pgbouncer.</ctx:remember>
<ctx:recall query="type:decision AND tag:project:api"/>
<ctx:status/>
<ctx:task name="auth" action="start"/>
<ctx:summarize nodes="01AAAA,01BBBB" archive="true">Both say X.</ctx:summarize>
<ctx:link from="01AAAA" to="01BBBB" type="DEPENDS_ON"/>
<ctx:supersede old="01AAAA" new="01BBBB"/>
<ctx:expand node="01CCCC"/>
"""
    parsed = parse(text)
    assert parsed.warnings == []
    assert [c.name for c in parsed.commands] == [
        "remember", "recall", "status", "task", "summarize", "link", "supersede", "expand"]
    remember, recall = parsed.commands[0], parsed.commands[1]
    assert remember.attrs == {"type": "decision", "tags": "tier:reference, project:api"}
    assert remember.items("tags") == ["tier:reference", "project:api"]
    assert remember.content == "Use pgbouncer."
    assert recall.attrs["query"] == "type:decision AND tag:project:api"
    assert parsed.commands[4].items("nodes") == ["01AAAA", "01BBBB"]
    assert parsed.commands[4].flag("archive") is True


def test_content_is_trimmed_but_inner_whitespace_kept():
    cmd = parse("<ctx:remember type=\"fact\">\n  line one\n    indented\n</ctx:remember>").commands[0]
    assert cmd.content == "line one\n    indented"


def test_single_quotes_and_unquoted_attribute_values():
    cmd = parse("<ctx:task name='deploy v2' action=end summarize=true/>").commands[0]
    assert cmd.attrs == {"name": "deploy v2", "action": "end", "summarize": "true"}
    assert cmd.flag("summarize")


def test_tags_inside_fenced_code_are_ignored():
    text = ("Example:\n```xml\n<ctx:remember type=\"fact\">not me</ctx:remember>\n```\n"
            "<ctx:remember type=\"fact\" tags=\"tier:reference\">me</ctx:remember>")
    parsed = parse(text)
    assert [c.content for c in parsed.commands] == ["me"]


def test_tags_inside_tilde_fences_and_unclosed_fences_are_ignored():
    assert names("~~~\n<ctx:status/>\n~~~\n") == []
    assert names("```\n<ctx:status/>\nno closing fence") == []
    assert names("````\n```\n<ctx:status/>\n````\n<ctx:status/>") == ["status"]


def test_tags_inside_inline_code_are_ignored():
    assert names("Write `<ctx:status/>` to see counts.") == []
    assert names("Write ``<ctx:status/> and `x` `` then") == []
    assert names("A lone ` backtick then <ctx:status/>") == ["status"]


def test_inline_triple_backticks_on_one_line_are_code():
    assert names("Like ```<ctx:status/>``` this") == []


def test_closing_tag_inside_code_does_not_end_the_content():
    text = "<ctx:remember type=\"pattern\">Close with `</ctx:remember>` always</ctx:remember>"
    cmd = parse(text).commands[0]
    assert cmd.content == "Close with `</ctx:remember>` always"


def test_malformed_tags_are_skipped_with_a_warning_and_the_rest_still_run():
    text = ("<ctx:remember type=\"fact\">no closing tag\n"
            "<ctx:frobnicate x=\"1\"/>\n"
            "<ctx:task action=\"start\"/>\n"
            "<ctx:task name=\"t\" action=\"pause\"/>\n"
            "<ctx:link from=\"A\"/>\n"
            "<ctx:remember type=\"fact\">   </ctx:remember>\n"
            "<ctx:status/>")
    parsed = parse(text)
    assert names(text) == ["status"]
    assert len(parsed.warnings) == 6
    assert any("no </ctx:remember>" in w for w in parsed.warnings)
    assert any("unknown command <ctx:frobnicate>" in w for w in parsed.warnings)
    assert any("empty content" in w for w in parsed.warnings)
    assert all("\n" not in w for w in parsed.warnings)


def test_unterminated_opening_tag_is_a_warning():
    parsed = parse("text <ctx:status and nothing else")
    assert parsed.commands == [] and len(parsed.warnings) == 1


def test_self_closing_commands_accept_an_explicit_close_or_none():
    assert names("<ctx:status></ctx:status> <ctx:status>") == ["status", "status"]


def test_recall_query_can_be_the_body():
    cmd = parse("<ctx:recall>how we deploy</ctx:recall>").commands[0]
    assert cmd.content == "how we deploy"


def test_large_content_is_kept_with_a_warning():
    parsed = parse(f"<ctx:remember type=\"fact\">{'x' * 60_000}</ctx:remember>")
    assert len(parsed.commands) == 1 and "large content" in parsed.warnings[0]


def test_code_spans_cover_fences_and_inline_code():
    text = "a `b` c\n```\nd\n```\ne"
    spans = code_spans(text)
    assert [text[a:b] for a, b in spans] == ["`b`", "```\nd\n```"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>/ctx:=\"'` \nabremmbstausk-")), max_size=200))
def test_parser_never_raises_and_commands_are_outside_code(text):
    parsed = parse(text)
    spans = code_spans(text)
    for cmd in parsed.commands:
        assert not any(a <= cmd.position < b for a, b in spans)
        assert text.startswith("<ctx:", cmd.position)
