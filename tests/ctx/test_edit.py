"""`ctx edit ID` with $EDITOR set to a script, the way a person's editor changes the file:
a change is a new version (`ctx show --history`), no change is no version, a broken file is
an error that keeps the text."""
from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest
from ctx_runner import add, ctx, ok


def editor(tmp_path: Path, body: str) -> str:
    """An $EDITOR: a Python script that rewrites the file it is given with `body(text)`."""
    script = tmp_path / "editor.py"
    script.write_text("import sys\npath = sys.argv[1]\ntext = open(path, encoding='utf-8').read()\n"
                      f"{body}\nopen(path, 'w', encoding='utf-8').write(text)\n")
    return f"{sys.executable} {script}"


@pytest.fixture
def node():
    return add("Staging Postgres listens on port 6543", "-t", "fact", "--tag", "tier:reference",
               "--meta", "rationale=from the runbook")


def test_the_file_holds_front_matter_and_the_content(node, tmp_path, monkeypatch):
    seen = tmp_path / "seen.txt"
    monkeypatch.setenv("EDITOR", editor(tmp_path, f"open({str(seen)!r}, 'w').write(text)"))
    r = ctx("edit", node[:8])
    assert r.exit_code == 0 and "unchanged; no new version" in r.stderr
    assert seen.read_text() == ("---\ntype: fact\ntags: tier:reference\nmetadata: "
                                '{"rationale": "from the runbook"}\n---\n'
                                "Staging Postgres listens on port 6543\n")
    shown = json.loads(ok("show", node, "--history", "-f", "json"))
    assert shown["versions"] == []  # no version for an unchanged file


def test_a_change_is_a_new_version_with_history(node, tmp_path, monkeypatch):
    monkeypatch.setenv("EDITOR", editor(tmp_path, (
        "text = text.replace('6543', '6544').replace('type: fact', 'type: decision')"
        ".replace('tags: tier:reference', 'tags: tier:pinned, area:db')")))
    r = ctx("edit", node)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.strip() == node and "version 1" in r.stderr
    now = json.loads(ok("show", node, "-f", "json", "--history"))
    assert now["content"] == "Staging Postgres listens on port 6544" and now["type"] == "decision"
    assert sorted(now["tags"]) == ["area:db", "tier:pinned"]
    assert now["metadata"] == {"rationale": "from the runbook"}
    [old] = now["versions"]
    assert old["version"] == 1 and old["content"] == "Staging Postgres listens on port 6543"
    assert old["type"] == "fact" and old["tags"] == ["tier:reference"]
    table = ok("show", node, "--history", "-f", "table")
    assert "version 1" in table and "port 6543" in table and "port 6544" in table
    # a second edit is version 2; the history keeps both, oldest first
    monkeypatch.setenv("EDITOR", editor(tmp_path, "text = text.replace('6544', '6545')"))
    assert ctx("edit", node).exit_code == 0
    versions = json.loads(ok("show", node, "-f", "json", "--history"))["versions"]
    assert [v["version"] for v in versions] == [1, 2]
    assert "6544" in versions[1]["content"]


@pytest.mark.parametrize("change,error", [
    ("text = text.replace('type: fact', 'type: factoid')", "type 'factoid' is not one of"),
    ("text = text.replace('metadata: {', 'metadata: [')", "metadata is not JSON"),
    ("text = text.replace('---\\n', '', 1)", "line 1 must be '---'"),
    ("text = text.replace('tags:', 'tgas:')", "line 3: expected one of type, tags, metadata"),
    ("text = text.replace('type: fact\\n', '')", "type '' is not one of"),
])
def test_a_broken_file_saves_nothing_and_keeps_the_text(node, tmp_path, monkeypatch, change, error):
    monkeypatch.setenv("EDITOR", editor(tmp_path, change + "\ntext += 'my careful words'"))
    r = ctx("edit", node)
    assert r.exit_code == 1 and r.stdout == ""
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("Error: ") and error in line and "nothing was saved" in line
    kept = Path(line.split("your text is in ")[1].split(" (fix it")[0])
    assert "my careful words" in kept.read_text()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    now = json.loads(ok("show", node, "-f", "json", "--history"))
    assert now["content"] == "Staging Postgres listens on port 6543" and now["versions"] == []
    # fixed by hand, the kept file is applied with --from
    kept.write_text(kept.read_text().replace("factoid", "fact").replace("metadata: [", "metadata: {")
                    .replace("tgas:", "tags:"))
    if "line 1" in error or "type ''" in error:
        return
    r = ctx("edit", node, "--from", str(kept))
    assert r.exit_code == 0, r.stderr
    assert "my careful words" in json.loads(ok("show", node, "-f", "json"))["content"]


def test_emptied_content_is_refused(node, tmp_path, monkeypatch):
    monkeypatch.setenv("EDITOR", editor(tmp_path, "text = text.split('---\\n')[1]"
                                                  " and '---\\n' + text.split('---\\n')[1] + '---\\n'"))
    r = ctx("edit", node)
    assert r.exit_code == 1 and "the content (after the front matter) is empty" in r.stderr
    assert "ctx rm" in r.stderr


def test_a_failing_editor_saves_nothing(node, tmp_path, monkeypatch):
    monkeypatch.setenv("EDITOR", editor(tmp_path, "text = text + 'half'\nopen(path, 'w').write(text)\n"
                                                  "sys.exit(3)"))
    r = ctx("edit", node)
    assert r.exit_code == 1 and "exited with status 3" in r.stderr and "your text is in" in r.stderr
    assert json.loads(ok("show", node, "-f", "json"))["content"].endswith("6543")


def test_a_secret_typed_into_the_editor_is_redacted(node, tmp_path, monkeypatch):
    monkeypatch.setenv("EDITOR", editor(tmp_path, (
        "text = text.rstrip('\\n') + ' token ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8' + '\\n'")))
    r = ctx("edit", node)
    assert r.exit_code == 0 and "redacted" in r.stderr
    assert "[SECRET:github-token]" in json.loads(ok("show", node, "-f", "json"))["content"]
