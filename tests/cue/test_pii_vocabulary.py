"""One credential vocabulary (issue 21/26): cue's key=value recognizer takes its label words
from cuectx.secrets, so a word ctx's guard learns is one cue scrubs too."""
from __future__ import annotations

import cuectx.secrets as shared
from cue.pii import scrub
from cue.pii.finders import secrets as recognizers


def test_cue_builds_its_credential_keys_from_the_shared_list():
    assert shared.PASSWORD_WORDS | set(shared.KOREAN_PASSWORD_WORDS) <= recognizers._PASSWORD_WORDS
    assert shared.SECRET_WORDS | set(shared.KOREAN_TOKEN_WORDS) <= recognizers._SECRET_WORDS
    assert shared.SECRET_WORD_PAIRS <= recognizers._KEY_PAIRS
    # what cue adds is privacy, not another idea of a credential
    assert recognizers._SECRET_WORDS - shared.SECRET_WORDS - set(shared.KOREAN_TOKEN_WORDS) == {
        "cookie", "signature", "sig", "sessionid"}


def test_a_pair_only_the_shared_list_knows_is_scrubbed_by_cue():
    # ("unseal", "key") came with issue 26; cue never listed it itself
    out = scrub("vault: unseal_key=Q3kd9LmZp2Xv8Rt5Wy1bN7cF")
    assert "Q3kd9LmZp2Xv8Rt5Wy1bN7cF" not in out and "unseal_key=" in out


def test_the_command_line_programs_are_listed_once_in_each_place():
    from cuectx.secret_commands import PROGRAMS

    assert PROGRAMS == shared._CLI_PROGRAMS
