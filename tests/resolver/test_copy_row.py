"""copy_row: a pill row's copy shares no container with the row, and its groups hold its own pills."""

from __future__ import annotations

from builder.resolver.ui.facts import make_pill
from builder.resolver.ui.rows import copy_row, make_row


def test_a_copied_row_is_equal_and_shares_no_container() -> None:
    a, b = make_pill("h200", "H200", sub="141G/GPU"), make_pill("mi300x", "MI300X", reason="No variant.")
    row = make_row("hardware", "Hardware", [a, b], groups=[{"label": "NVIDIA", "pills": [a]},
                                                          {"label": "AMD", "pills": [b]}],
                   event={"type": "hardware"})
    copy = copy_row(row)
    assert copy == row and list(copy) == list(row)
    assert copy["pills"][0] is copy["groups"][0]["pills"][0]
    assert copy["pills"][1] is copy["groups"][1]["pills"][0]
    copy["pills"][0]["selected"] = True
    copy["event"]["type"] = "variant"
    copy["groups"][1]["label"] = "Other"
    assert (a["selected"], row["event"], row["groups"][1]["label"]) == (False, {"type": "hardware"}, "AMD")


def test_a_row_without_groups_is_copied_without_them() -> None:
    row = make_row("variant", "Variant", [make_pill("fp8", "FP8", True)], event={"type": "variant"})
    copy = copy_row(row)
    copy["pills"].append(make_pill("bf16", "BF16"))
    assert copy["pills"][0] == row["pills"][0] and len(row["pills"]) == 1 and "groups" not in copy
