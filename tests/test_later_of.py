"""`later_of` (issue 37): `later` with the fields in a dict the caller hands over; the rules'
most made texts use it.  The same text as `later` and `text`, the same refusal of an unknown key."""

from __future__ import annotations

import pytest

from tianshen.core.spec import Hot, RulesetSpec, Text
from tianshen.specs import load_spec

FIELDS = {"name": "甲{x}", "count": 3, "voters": "乙、丙", "note": " "}


@pytest.mark.parametrize("owner", ["spec", "hot"])
def test_later_of_is_later_with_its_fields_in_a_dict(owner: str) -> None:
    spec = load_spec("classic_10")
    maker: RulesetSpec | Hot = spec if owner == "spec" else spec.hot()
    values = dict(FIELDS)
    made = maker.later_of("tally_line", values)
    kw = maker.later("tally_line", **FIELDS)
    assert type(made) is Text and made.spec is spec and made.key == "tally_line"
    assert made.values == FIELDS and list(made.values) == list(FIELDS)
    assert str(made) == str(kw) == spec.text("tally_line", **FIELDS)
    assert values == FIELDS  # rendering adds no `gm` to the caller's dict
    assert str(maker.later_of("nobody_executed", {})) == spec.text("nobody_executed")


@pytest.mark.parametrize("owner", ["spec", "hot"])
def test_later_of_refuses_an_unknown_key_when_made(owner: str) -> None:
    spec = load_spec("classic_10")
    maker: RulesetSpec | Hot = spec if owner == "spec" else spec.hot()
    with pytest.raises(KeyError, match="no text 'no_such_text'"):
        maker.later_of("no_such_text", {"n": 1})
    with pytest.raises(KeyError, match="no text 'no_such_text'"):
        maker.later("no_such_text", n=1)
