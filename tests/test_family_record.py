"""One `Family` record per ruleset family (issue 35 item 3, core.family): every registry and
word table is a read of it, a record without a word is refused when built, and what random
play shows on the pages is always a word of the game's own family, never 其他."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from test_contract_families import CASES, IDS, _step
from tianshen.core.family import Family
from tianshen.core.model import GmIn
from tianshen.core.observation import observation
from tianshen.core.ruleset import GameSetup, Ruleset
from tianshen.rules import families, family, load_ruleset
from tianshen.sim import policies, sims_for
from tianshen.sim.montecarlo import Game
from tianshen.sim.rehearsal import default_seats
from tianshen.specs import available_variants, load_spec
from tianshen.web import views

START = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
SRC = Path(__file__).resolve().parents[1] / "src" / "tianshen"


def test_every_shipped_variant_has_a_family_record() -> None:
    assert {load_spec(v).ruleset for v in available_variants()} <= set(families())


@pytest.mark.parametrize("name", sorted(families()))
def test_every_family_loads_with_its_ruleset_sims_and_counters(name: str) -> None:
    record = families()[name]
    assert record.id == name and issubclass(record.ruleset_class(), Ruleset)
    for policy in policies():
        assert callable(record.sims_class(policy))
    assert all(k and w for k, w in record.events.items())
    sims = sims_for(name, object(), "天神", 1)  # type: ignore[arg-type]
    assert hasattr(sims, "act")


def test_a_record_without_a_word_is_refused_when_built() -> None:
    with pytest.raises(ValueError, match="no word for its causes: shot"):
        Family(id="x", ruleset="m:C", sims="m:S", causes={"shot": " "})


def test_an_unknown_family_or_policy_is_one_clear_line() -> None:
    with pytest.raises(ValueError, match="ruleset family 'chess' is unknown; families: butterfly_elder"):
        family("chess")
    with pytest.raises(ValueError, match="unknown policy 'best'"):
        sims_for("classic", object(), "天神", 1, policy="best")  # type: ignore[arg-type]


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_random_play_never_shows_other_on_the_pages(variant: str, players: int) -> None:
    """Every step, next deadline and cause of death of random play has a word in its own
    family's record (the GM page, the public page and the GM's input list read them)."""
    ruleset = load_ruleset(variant)
    name = ruleset.spec.ruleset
    steps, kinds = views.family_words(name, "step_words"), views.family_words(name, "deadline_words")
    causes = views.family_words(name, "cause_words")
    for seed in (1, 2):
        game = Game(ruleset, seed, players)
        for _ in range(300):
            if game.state.phase.kind == "over":
                break
            due = ruleset.next_deadline(game.state)
            assert due is not None
            assert views.words(steps, game.state.phase.step) != "其他", game.state.phase.step
            assert views.words(kinds, due.kind) != "其他", due.kind
            _step(game)
        for p in game.state.players:
            assert p.alive or views.words(causes, p.death_cause) != "其他", p.death_cause


def test_the_core_deadlines_have_words_in_every_family() -> None:
    for record in families().values():
        for kind in ("checkin_end", "substitution_end", "reminder"):
            assert views.words(record.deadline_words(), kind) != "其他"


def test_a_dead_butterfly_is_named_in_the_observation_as_the_board_named_her() -> None:
    """004 五: an independent is announced by her role; the public observation (and the
    pages, which read it) says 花蝴蝶, not 独立方."""
    ruleset = load_ruleset("butterfly_elder")
    state = ruleset.setup(GameSetup(seats=default_seats(16), seed=3, start=START)).state
    her = next(p for p in state.players if p.role == "butterfly")
    outcome = ruleset.apply(state, GmIn(command="modkill", args={"player": her.name}, reason="测试",
                                        at=START, id="gm1"))
    said = "\n".join(p.body for p in outcome.posts)
    row = next(r for r in observation(ruleset, outcome.state, None)["players"] if r["name"] == her.name)
    word = ruleset.spec.role_name("butterfly")
    assert word in said and row["identity"] == word
    assert views.announced_identity(ruleset, outcome.state, outcome.state.player(her.name)) == word


def test_the_web_views_do_not_switch_on_a_family_name() -> None:
    text = (SRC / "web" / "views.py").read_text(encoding="utf-8")
    names = "|".join(families())
    assert not re.search(rf'[=!]= *"({names})"|"({names})" *[=!]=', text)


def test_the_hand_kept_registries_are_gone() -> None:
    import tianshen.rules as rules
    import tianshen.sim as sim
    import tianshen.sim.report as report

    assert not hasattr(rules, "FAMILIES") and not hasattr(sim, "SIMS") and not hasattr(sim, "POLICIES")
    assert not hasattr(report, "EVENT_COUNTERS")


def test_no_family_overrides_a_private_method_of_core() -> None:
    """Where a family acts inside core's fold, core offers a named hook (after_input,
    watch_activity, report_lurkers); no family class redefines a `_` method of core."""
    core = {n for k in Ruleset.__mro__ if k.__module__.startswith("tianshen.core") for n in vars(k)
            if n.startswith("_") and not n.startswith("__") and n != "_abc_impl"}
    for record in families().values():
        for k in record.ruleset_class().__mro__:
            if k.__module__.startswith("tianshen.rules"):
                assert not core & set(vars(k)), (k.__name__, core & set(vars(k)))
        assert "apply" not in vars(record.ruleset_class())


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_a_wasted_seat_leaves_alike_in_every_family(variant: str, players: int) -> None:
    """The shell once (issue 35 item 1): a seat nobody took leaves like a death (core's
    seat_wasted, the family's `remove`), the GM is told in one wording, and the board is told
    the side its rules reveal of a death."""
    from tianshen.core.outbox import Messages

    ruleset = load_ruleset(variant)
    state = ruleset.setup(GameSetup(seats=default_seats(players), seed=3, start=START)).state
    p = state.players[0]
    out = Messages()
    ruleset.seat_wasted(state, p, START, out)
    assert not p.alive and p.death_cause == "wasted"
    assert out.notes == [ruleset.spec.text("note_wasted", name=p.name)]
    said = "\n".join(post.body for post in out.posts)
    assert p.name in said and ruleset.public_identity(state, p) in said


@pytest.mark.parametrize("variant", available_variants())
def test_a_wrong_number_of_seats_is_refused_alike(variant: str) -> None:
    """The setup frame once: every family refuses a seat count its variant is not played by
    in one wording."""
    ruleset = load_ruleset(variant)
    n = min(ruleset.spec.player_counts or [ruleset.spec.players]) - 1
    with pytest.raises(ValueError, match=rf"^{variant} needs [0-9 or]+ players, got {n}$"):
        ruleset.setup(GameSetup(seats=default_seats(n), seed=3, start=START))


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_the_game_over_names_every_seat_and_the_seed(variant: str, players: int) -> None:
    """core's game_over (a guard for the one frame: it held before it too)."""
    ruleset = load_ruleset(variant)
    state = ruleset.setup(GameSetup(seats=default_seats(players), seed=3, start=START)).state
    outcome = ruleset.apply(state, GmIn(command="end-game", args={}, reason="测试", at=START, id="gm1"))
    post = outcome.posts[-1].body
    assert outcome.state.phase.kind == "over" and outcome.state.winner is None
    assert all(p.name in post for p in state.players) and str(state.seed) in post


@pytest.mark.parametrize("variant", available_variants())
def test_every_player_view_starts_with_the_one_head(variant: str) -> None:
    """core's player_view head (a guard: the families add notes after it)."""
    ruleset = load_ruleset(variant)
    spec = ruleset.spec
    state = ruleset.setup(GameSetup(seats=default_seats(min(spec.player_counts or [spec.players])), seed=3,
                                    start=START)).state
    for p in state.players:
        view = ruleset.player_view(state, p.name)
        assert list(view)[:6] == ["alive", "faction", "role", "role_name", "died_in", "death_cause"]
        assert view["role"] == p.role and view["alive"] is True


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_extend_moves_the_deadline_of_every_step_random_play_reaches(variant: str, players: int) -> None:
    """`extend` moves the next deadline of whatever step the game is in (not only night 1),
    by the hours asked (rounded up to the whole minute)."""
    from datetime import timedelta

    ruleset = load_ruleset(variant)
    game = Game(ruleset, 2, players)
    seen = set()
    for _ in range(300):
        state = game.state
        if state.phase.kind == "over":
            break
        before = ruleset.next_deadline(state)
        assert before is not None
        outcome = ruleset.apply(state, GmIn(command="extend", args={"hours": 2}, reason="测试",
                                            at=game.now, id="gm-extend"))
        after = ruleset.next_deadline(outcome.state)
        assert after is not None and after.kind == before.kind, (before, after)
        moved = after.at - before.at
        assert timedelta(hours=2) <= moved < timedelta(hours=2, minutes=1), (state.phase.label, state.phase.step,
                                                                              before.kind, moved)
        seen.add((state.phase.step, before.kind))
        _step(game)
    assert len(seen) > 1


def test_admin_status_has_a_word_for_every_deadline_of_every_family() -> None:
    """`tianshen admin status` names the next deadline in words, never its key."""
    from tianshen.cli import DEADLINE_WORDS

    for record in families().values():
        assert not set(record.deadline_words()) - set(DEADLINE_WORDS), record.id


def test_a_step_table_without_a_word_or_an_end_is_refused_when_it_loads() -> None:
    """The words of steps and deadlines are the class's step table's (core.flow): a step or
    a deadline without a word, or an end naming a method the class lacks, is refused."""
    from tianshen.core.flow import ANY, Step

    record = families()["hex_survival"]
    steps = record.ruleset_class().STEPS

    class Misnamed(record.ruleset_class()):  # type: ignore[misc]
        STEPS = (*steps[:2], Step("day", ANY, "day_end", "_dusk_typo", deadline_words="白天结束"))

    class Unworded(record.ruleset_class()):  # type: ignore[misc]
        STEPS = (*steps, Step("day", "ld", "day_end", "_dusk", deadline_words="白天结束"))

    class Unnamed(record.ruleset_class()):  # type: ignore[misc]
        STEPS = (*steps, Step("day", ANY, "ld_end", "_dusk"))

    with pytest.raises(ValueError, match="methods it lacks: _dusk_typo"):
        record.check(Misnamed)
    with pytest.raises(ValueError, match="no word for its steps: ld"):
        record.check(Unworded)
    with pytest.raises(ValueError, match="no word for its deadlines: ld_end"):
        record.check(Unnamed)
    for each in families().values():
        each.check(each.ruleset_class())
    assert families()["classic"].step_words()["ld"] == "生死投票"
    assert families()["n_lives"].deadline_words()["dusk"] == "天黑"


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_the_gm_ending_the_game_with_a_winner_names_the_winner(variant: str, players: int) -> None:
    """core's end_by_gm in every family: a winner the GM names is announced as won (n_lives
    said 不分胜负 while storing the winner)."""
    ruleset = load_ruleset(variant)
    state = ruleset.setup(GameSetup(seats=default_seats(players), seed=3, start=START)).state
    for faction in ruleset.spec.factions:
        outcome = ruleset.apply(state, GmIn(command="end-game", args={"winner": faction}, reason="测试", at=START,
                                            id="gm1"))
        assert outcome.state.winner == faction
        assert ruleset.winner_words(faction) in outcome.posts[-1].body
        assert "不分胜负" not in outcome.posts[-1].body
