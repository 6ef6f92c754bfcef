"""Shared mechanics of the core: PM grammar, name matching, vote posts, tallies, RNG."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tianshen.core import rng
from tianshen.core.abilities import table
from tianshen.core.grammar import VERBS, ParsedPm, count_declaration_chars, parse_pm
from tianshen.core.model import GameState, Player
from tianshen.core.names import NameMatchError, match_name
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.core.votes import tally, vote_target_text
from tianshen.specs import load_spec

NAMES = ["白狐", "青竹", "Alice", "alice2", "夜莺"]
# the shared verbs and classic's abilities (their words are in the family's TOML, issue 36)
CLASSIC_VERBS = VERBS | table(load_spec("classic_10")).verbs()


def parse(text: str) -> ParsedPm:
    return parse_pm(text, CLASSIC_VERBS)


@pytest.mark.parametrize(
    ("text", "verb", "arg"),
    [
        ("杀 青竹", "kill", "青竹"),
        ("刺杀：青竹", "kill", "青竹"),
        ("束魂：夜莺", "soulbind", "夜莺"),
        ("束魂:夜莺", "soulbind", "夜莺"),
        ("占卜 白狐", "divine", "白狐"),
        ("卜 白狐", "divine", "白狐"),
        ("占卜白狐", "divine", "白狐"),
        ("祈祷　夜莺", "pray", "夜莺"),  # full-width space
        ("诅咒，白狐", "curse", "白狐"),
        ("庇佑 白狐", "bless", "白狐"),
        ("投票 青竹", "vote", "青竹"),
        ("委托投票 青竹", "delegate", "青竹"),
        ("委托投票：青竹", "delegate", "青竹"),
        ("ＫＩＬＬ 青竹", "kill", "青竹"),  # full-width Latin
    ],
)
def test_plain_forms_of_every_verb(text: str, verb: str, arg: str) -> None:
    parsed = parse(text)
    assert [(c.verb, c.arg) for c in parsed.commands] == [(verb, arg)]
    assert parsed.unknown == []


def test_several_commands_in_one_pm_and_unknown_lines() -> None:
    parsed = parse("天神好！\n束魂：丙；诅咒 丁\n委托投票 戊")
    assert [(c.verb, c.arg) for c in parsed.commands] == [("soulbind", "丙"), ("curse", "丁"), ("delegate", "戊")]
    assert parsed.unknown == ["天神好!"]  # echoed in half-width form


def test_declaration_follows_the_kill_or_comes_alone() -> None:
    parsed = parse("杀 丙\n第一行宣言\n第二行宣言")
    assert parsed.commands[0].text == "第一行宣言\n第二行宣言"
    alone = parse("宣言：月黑风高\n杀人夜")
    assert (alone.commands[0].verb, alone.commands[0].text) == ("declaration", "月黑风高\n杀人夜")
    story = parse("剧情\n短故事")
    assert (story.commands[0].verb, story.commands[0].text) == ("story", "短故事")


def test_declaration_characters_exclude_whitespace_only() -> None:
    assert count_declaration_chars("月 黑\n风，高！") == 6  # DECISIONS §0.4: punctuation counts


def test_no_command_at_all() -> None:
    assert parse("你好，请问今晚几点结束？").commands == []


def test_name_exact_then_unique_folded_match() -> None:
    assert match_name("白狐", NAMES) == "白狐"
    assert match_name("ALICE", NAMES) == "Alice"
    assert match_name("Ａｌｉｃｅ", NAMES) == "Alice"
    assert match_name("“夜莺”", NAMES) == "夜莺"


def test_ambiguous_and_unknown_names_are_errors_listing_candidates() -> None:
    with pytest.raises(NameMatchError) as partial:
        match_name("ali", NAMES)
    assert set(partial.value.candidates) == {"Alice", "alice2"}
    assert "Alice" in partial.value.message and "alice2" in partial.value.message
    with pytest.raises(NameMatchError) as unknown:
        match_name("黑熊", NAMES)
    assert unknown.value.candidates == ()
    assert "黑熊" in unknown.value.message
    with pytest.raises(NameMatchError):
        match_name("  ", NAMES)


def test_seats_that_fold_together_are_refused() -> None:
    t = datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(ValueError, match="cannot be told apart"):
        GameSetup(seats=[Seat(name="Alice"), Seat(name="ａｌｉｃｅ")], seed=1, start=t)


def test_vote_posts() -> None:
    assert vote_target_text("投票 青竹", NAMES) == "青竹"
    assert vote_target_text("投：青竹", NAMES) == "青竹"
    assert vote_target_text("青竹", NAMES) == "青竹"  # a post that is only a name
    assert vote_target_text("[quote]投票 白狐[/quote]\n投票 青竹", NAMES) == "青竹"
    assert vote_target_text("> 投票 白狐\n我觉得青竹可疑", NAMES) is None
    assert vote_target_text("大家好", NAMES) is None


def test_tally_counts_modifiers_and_clamps() -> None:
    result = tally(["甲", "甲", "乙"], {"乙": 1, "丙": -1})
    assert result.counts == {"甲": 2, "乙": 2, "丙": 0}
    assert result.top == ["甲", "乙"]
    assert tally(["甲"], {"甲": -1}).top == []


def _state(seed: int) -> GameState:
    return GameState(ruleset="x", variant="x", seed=seed, players=[Player(name="a", forum_name="a", seat=1)])


def test_rng_is_a_function_of_seed_and_draw_count() -> None:
    a, b, c = _state(5), _state(5), _state(6)
    seq_a = [rng.below(a, 1000) for _ in range(20)]
    assert seq_a == [rng.below(b, 1000) for _ in range(20)]
    assert seq_a != [rng.below(c, 1000) for _ in range(20)]
    assert a.rng_draws == 20
    resumed = GameState.model_validate_json(a.model_dump_json())
    assert rng.below(resumed, 1000) == rng.below(a, 1000)
    assert sorted(rng.shuffled(_state(1), list(range(10)))) == list(range(10))


def test_variant_data_is_loaded_with_its_shared_file() -> None:
    spec = load_spec("classic_13")
    assert spec.players == 13 == sum(r.count for r in spec.roles.values())
    assert spec.role_by_name("独立杀手") == "independent_killer"
    assert spec.timing.vote_opens_hour == 12 and spec.timing.night_hours == 24
    assert "dawn_nobody" in spec.texts
    with pytest.raises(ValueError, match="unknown ruleset"):
        load_spec("no_such_variant")


def test_phase_clock_from_the_ruleset_timing() -> None:
    from tianshen.core.clock import PhaseClock

    clock = PhaseClock(load_spec("classic_10").timing)
    dawn = datetime(2026, 1, 2, 20, tzinfo=UTC)
    day = clock.day(dawn)
    assert (day.vote_opens - dawn).total_seconds() == 12 * 3600  # 002: the 13th hour
    assert (day.vote_ends - dawn).total_seconds() == 36 * 3600
    assert (clock.extended_day_ends(day.vote_ends) - day.vote_ends).total_seconds() == 24 * 3600
    assert (clock.night_ends(dawn) - dawn).total_seconds() == 24 * 3600
    assert clock.summon_rounds() == 2  # (24 − 12) ÷ 6
