"""Memory without a tier (issue 40): `ctx status` counts it, in the scope it reports."""
from __future__ import annotations

import json

from ctx_runner import add, ok


def test_status_counts_memories_without_a_tier():
    add("Deploys go out on Tuesdays only", "--type", "decision")
    add("Staging DB listens on port 6543", "--tag", "tier:reference")
    old = add("Releases are cut on Fridays", "--type", "decision")
    new = add("Releases are cut on Mondays", "--type", "decision")
    ok("supersede", old, new)
    info = json.loads(ok("status", "-f", "json"))
    assert info["untiered"] == 2  # the superseded one no longer counts
    assert "no tier 2" in ok("status", "-f", "table")
    add("Parked idea", "--tag", "tier:off-context")
    assert json.loads(ok("status", "-f", "json"))["untiered"] == 2  # off-context is a tier
