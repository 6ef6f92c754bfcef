"""The classic sims fill their forms by joining the form's parts around `{t}` (issue 37):
the text `str.format` gave, for every form a variant hands them and for the forms that
must still be formatted."""

from __future__ import annotations

import random

import pytest

from tianshen.core.abilities import table
from tianshen.sim import classic
from tianshen.sim.classic import STORY, VOTE_FORMS, declaration, fill
from tianshen.specs import shared_spec

TARGETS = ("白狐", "x", "", "{t}", "a}b{")


@pytest.mark.parametrize("variant", ["classic_8", "classic_10", "classic_13", "game_ten"])
def test_every_form_of_a_variant_is_filled_as_format_fills_it(variant: str) -> None:
    spec = shared_spec(variant)
    forms = [form for role in spec.roles if (a := table(spec).first(role)) is not None
             for form in (a.get("sim_forms") or [a.words[0] + " {t}"])]
    assert forms
    for form in [*forms, *VOTE_FORMS]:
        for target in TARGETS:
            assert fill(form, target) == form.format(t=target)


@pytest.mark.parametrize("form", ["{t}", "{t}{t}", "杀 {t}！", "no field", "{{t}} {t}", "{t} {x}", "{0} {t}",
                                  "{t!r}", "{t:>5}", "}} {t}"])
def test_a_form_with_other_fields_or_braces_is_formatted(form: str) -> None:
    for target in TARGETS:
        try:
            expected = form.format(t=target)
        except (KeyError, IndexError, ValueError) as exc:
            with pytest.raises(type(exc)):
                fill(form, target)
        else:
            assert fill(form, target) == expected


def test_the_table_of_forms_stays_bounded() -> None:
    for i in range(classic._FILLS_MAX * 2):
        assert fill(f"{i} {{t}}", "甲") == f"{i} 甲"
    assert len(classic._FILLS) <= classic._FILLS_MAX


def test_the_declaration_and_the_vote_forms_are_the_formatted_texts() -> None:
    story = "".join(STORY)
    for target in TARGETS:
        assert declaration(target, random.Random(1)) == story.format(t=target)
        for form, parts in zip(VOTE_FORMS, classic._VOTE_PARTS, strict=True):
            assert target.join(parts) == form.format(t=target)
