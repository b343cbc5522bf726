"""Reading Claude's replies from a Claude Code 2.1.330-shaped transcript with a cursor."""
from __future__ import annotations

import json

from ctx.claude.transcript import Cursor, read_replies


def user(text, prompt_id, **extra):
    return {"type": "user", "promptId": prompt_id, "message": {"role": "user", "content": text},
            "uuid": f"u-{prompt_id}", **extra}


def assistant(*blocks, msg_id="msg_1"):
    return {"type": "assistant", "requestId": "req_1",
            "message": {"id": msg_id, "role": "assistant", "content": list(blocks)}}


def text(t):
    return {"type": "text", "text": t}


def tool_use():
    return {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "echo hi"}}


def tool_result(prompt_id):
    return {"type": "user", "promptId": prompt_id,
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                     "content": "hi"}]}}


NOISE = [
    {"type": "queue-operation", "operation": "enqueue"},
    {"type": "attachment", "attachment": {"type": "hook_additional_context",
                                          "content": ["<ctx:status/> replayed context"]}},
    {"type": "api-request-blob", "blob": {"messages": [{"role": "assistant", "content": "<ctx:status/>"}]}},
    {"type": "cost-state", "usd": 0.01},
    {"type": "some-future-type", "assistant": True},
]


def write(path, entries, *, tail=""):
    with open(path, "a", encoding="utf-8") as f:
        f.writelines(json.dumps(e) + "\n" for e in entries)
        f.write(tail)


def test_one_turn_with_a_tool_call_yields_every_text_block(tmp_path):
    t = tmp_path / "s.jsonl"
    write(t, [NOISE[0], user("do it", "p1"), *NOISE[1:3],
              assistant(text("step one <ctx:status/>")), assistant(tool_use()), tool_result("p1"),
              assistant(text("done"), msg_id="msg_2"), NOISE[3], NOISE[4]])
    r = read_replies(str(t), None, prompt_id="p1")
    assert r.texts == ["step one <ctx:status/>", "done"]
    assert r.cursor == Cursor(str(t), t.stat().st_size)
    assert not r.from_cursor and not r.partial_tail


def test_without_a_cursor_only_the_current_turn_is_read(tmp_path):
    t = tmp_path / "s.jsonl"
    write(t, [user("old", "p0"), assistant(text("old reply")), user("new", "p1"),
              assistant(text("new reply"))])
    assert read_replies(str(t), None, prompt_id="p1").texts == ["new reply"]


def test_without_prompt_id_the_last_real_prompt_starts_the_turn(tmp_path):
    t = tmp_path / "s.jsonl"
    write(t, [user("old", None), assistant(text("old reply")), user("new", None),
              assistant(text("a")), assistant(tool_use()), tool_result(None),
              {"type": "user", "isMeta": True, "message": {"content": "Stop hook feedback:\nx"}},
              assistant(text("b"))])
    assert read_replies(str(t), None).texts == ["a", "b"]


def test_with_a_cursor_everything_after_it_is_read_once(tmp_path):
    t = tmp_path / "s.jsonl"
    write(t, [user("one", "p1"), assistant(text("first"))])
    r1 = read_replies(str(t), None, prompt_id="p1")
    # A turn whose Stop never ran, then the current one.
    write(t, [user("two", "p2"), assistant(text("second")), user("three", "p3"), assistant(text("third"))])
    r2 = read_replies(str(t), r1.cursor, prompt_id="p3")
    assert r2.texts == ["second", "third"] and r2.from_cursor
    r3 = read_replies(str(t), r2.cursor, prompt_id="p3")
    assert r3.texts == []


def test_a_cursor_for_another_file_or_past_the_end_is_not_used(tmp_path):
    t = tmp_path / "s.jsonl"
    write(t, [user("old", "p0"), assistant(text("old")), user("new", "p1"), assistant(text("new"))])
    assert read_replies(str(t), Cursor("/elsewhere.jsonl", 5), prompt_id="p1").texts == ["new"]
    assert read_replies(str(t), Cursor(str(t), 10**9), prompt_id="p1").texts == ["new"]


def test_a_half_written_last_line_is_left_for_the_next_read(tmp_path):
    t = tmp_path / "s.jsonl"
    line = json.dumps(assistant(text("late <ctx:status/>")))
    write(t, [user("q", "p1"), assistant(text("early"))], tail=line[:25])
    r = read_replies(str(t), None, prompt_id="p1")
    assert r.texts == ["early"] and r.partial_tail
    with open(t, "a") as f:
        f.write(line[25:] + "\n")
    r2 = read_replies(str(t), r.cursor, prompt_id="p1")
    assert r2.texts == ["late <ctx:status/>"] and not r2.partial_tail


def test_a_complete_last_line_without_newline_is_read(tmp_path):
    t = tmp_path / "s.jsonl"
    write(t, [user("q", "p1")], tail=json.dumps(assistant(text("whole"))))
    r = read_replies(str(t), None, prompt_id="p1")
    assert r.texts == ["whole"] and not r.partial_tail and r.cursor.offset == t.stat().st_size


def test_garbage_lines_strings_and_odd_shapes_are_ignored(tmp_path):
    t = tmp_path / "s.jsonl"
    t.write_text("not json\n[1,2]\n" + json.dumps(user("q", "p1")) + "\n"
                 + json.dumps({"type": "assistant", "message": "oops"}) + "\n"
                 + json.dumps({"type": "assistant", "message": {"content": [1, {"type": "text"}]}}) + "\n"
                 + json.dumps({"type": "assistant", "message": {"content": "old string form"}}) + "\n"
                 + json.dumps({"type": "assistant", "isSidechain": True,
                               "message": {"content": [text("subagent")]}}) + "\n")
    assert read_replies(str(t), None, prompt_id="p1").texts == ["old string form"]


def test_cursor_round_trips_and_rejects_junk():
    c = Cursor("/t.jsonl", 42, "abc")
    assert Cursor.from_json(c.to_json()) == c
    assert Cursor.from_json("nope") is None
    assert Cursor.from_json('{"path": 3, "offset": -1}') == Cursor("", 0, None)
