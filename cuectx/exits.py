"""One exit-code table for both programs (the README's "Exit codes" section).

ctx and cue are piped together in cron (`cue digest … | ctx add --json -`), so a number
means the same thing whichever of them returned it.
"""
from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1  # bad input: unknown type, empty content, bad query, bad JSON, missing file…
    USAGE = 2  # command-line usage error (unknown option, unsupported --format…)
    NOT_FOUND = 3  # unknown or ambiguous id, unknown view, nothing recorded yet
    DATABASE = 4  # database locked, corrupt or unopenable
    BACKEND = 5  # a model/backend was skipped or failed (cue digest, cue memory, cue record)
