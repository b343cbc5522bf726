"""Command-line passwords as cue's scrubber finds them (cue.pii.finders.secrets, over the
shared parser cuectx.secret_commands that ctx's write guard uses too): the value alone."""
from __future__ import annotations

import pytest

from cue.pii.finders.secrets import find_command_passwords
from cuectx.secret_commands import names_a_program


def found(text: str) -> list[str]:
    return [text[s:e] for s, e in find_command_passwords(text)]


@pytest.mark.parametrize(("text", "password"), [
    ("mysql -u root -pS3cr3t!x billing", "S3cr3t!x"),
    ("Ran `sshpass -p LFHQNnXTRK8vT ssh deploy@build-01` in the terminal.", "LFHQNnXTRK8vT"),
    ("`mysql -uroot -p%^YPj1O0UGBs`", "%^YPj1O0UGBs"),  # a % that is no %VAR% reference
    ("/usr/bin/mysqldump -u deploy -p'Ago 4799!' app", "Ago 4799!"),  # glued and quoted
    ("터미널에서 mysql -pS3cr3t!로 접속", "S3cr3t!"),  # a particle is not the password
    ("redis-cli -h cache-01 -a x87h_5p1 ping", "x87h_5p1"),
    ("docker login -u me -p 'Hx9!kk22' registry.internal", "Hx9!kk22"),
])
def test_the_value_alone_is_found(text, password):
    assert found(text) == [password]


@pytest.mark.parametrize("text", [
    "mysql -u root -p billing", "mysql -u root -p", "ssh -p 22 host", "docker run -p 8080:80 nginx",
    "sshpass -p \"$PASS\" ssh build-01", "mysql -p'%PW%' app", "mysql -p%(pw)s",
    "mysql -p<password>",
    "sshpass -p ~/.pw ssh nas", "the mysql manual says -p prompts", "mysqlclient -pS3cr3t!x",
])
def test_ports_prompts_references_and_files_are_not(text):
    assert found(text) == []


def test_names_a_program_is_word_bounded():
    assert names_a_program("cd /srv && /usr/bin/mysql -pX")
    assert names_a_program("`sshpass -p x`")
    assert not names_a_program("pip install mysqlclient; mysql_config --libs")
