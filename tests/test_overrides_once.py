"""The GM overrides over the ledgers, written once (issue 34 items 6): `void-action`,
`void-vote`, `enter-vote`, `reject-declaration` act on every family's ledgers and refuse
the same mistake in one wording (Chinese, for the GM) in every variant."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from tianshen.core import overrides
from tianshen.core.model import GmIn, Outcome, PmIn
from tianshen.core.overrides import NO_ACTION, NO_BALLOT, NO_DECLARATION, NO_VOTE_OPEN
from tianshen.core.ruleset import GameSetup
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game
from tianshen.sim.rehearsal import default_seats
from tianshen.specs import available_variants, load_spec

START = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
CASES = [(v, n) for v in available_variants() for n in (load_spec(v).player_counts or [load_spec(v).players])]
IDS = [f"{v}-{n}" for v, n in CASES]
FAMILIES = {load_spec(v).ruleset: v for v in available_variants()}


def _gm(game: Game, command: str, **args: object) -> Outcome:
    gm = GmIn(id=f"gm-{command}-{game.now}", at=game.now, command=command, args=args, reason="测试")
    outcome = game.ruleset.apply(game.state, gm)
    game.state = outcome.state
    return outcome


def _refusal(variant: str, players: int, command: str, **args: object) -> str | None:
    ruleset = load_ruleset(variant)
    state = ruleset.setup(GameSetup(seats=default_seats(players), seed=3, start=START)).state
    if command not in ruleset.gm_commands():
        return "n/a"
    gm = GmIn(id="gm", at=START + timedelta(hours=1), command=command, args=args, reason="测试")
    outcome = ruleset.apply(state, gm)
    return outcome.refusals[0].reason if outcome.refusals else None


def test_enter_vote_at_night_is_refused_in_one_wording_in_every_family() -> None:
    reasons = {f"{v}-{n}": _refusal(v, n, "enter-vote", player=default_seats(n)[0].name,
                                    target=default_seats(n)[1].name) for v, n in CASES}
    assert set(reasons.values()) == {NO_VOTE_OPEN}, reasons


@pytest.mark.parametrize(("command", "wording"), [("void-vote", NO_BALLOT), ("void-action", NO_ACTION),
                                                  ("reject-declaration", NO_DECLARATION)])
def test_nothing_to_act_on_is_refused_in_one_wording(command: str, wording: str) -> None:
    """Night 1 before anyone wrote: no ballot, no action, no declaration — said alike."""
    reasons = {}
    for v, n in CASES:
        name = default_seats(n)[-1].name
        reason = _refusal(v, n, command, player=name)
        if reason != "n/a":
            reasons[f"{v}-{n}"] = reason.replace(name, "NAME") if reason else reason
    assert reasons and set(reasons.values()) == {wording.format(name="NAME")}, reasons


def test_the_families_without_declarations_do_not_list_reject_declaration() -> None:
    listed = {f: "reject-declaration" in load_ruleset(v).gm_commands() for f, v in FAMILIES.items()}
    assert listed == {"classic": True, "game_ten": True, "n_lives": True, "hex_survival": False,
                      "butterfly_elder": False}


def _play_until(game: Game, found, steps: int = 400) -> bool:  # type: ignore[no-untyped-def]
    """Random play, an hour at a time, until `found(game)` holds (False at game over)."""
    for _ in range(steps):
        if found(game):
            return True
        deadline = game.ruleset.next_deadline(game.state)
        if deadline is None:
            return False
        game.now = max(game.now, min(game.now + timedelta(hours=1), deadline.at - timedelta(minutes=1)))
        game.sims.act(game.state, game.now, game.thread)
        game.advance(game._read())
        if found(game):
            return True
        game.now = max(game.now, deadline.at)
        game.advance([])
    return False


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_void_vote_and_enter_vote_act_on_the_ballots(family: str) -> None:
    variant = FAMILIES[family]
    for seed in (1, 2, 3, 4):
        game = Game(load_ruleset(variant), seed, load_spec(variant).players)
        if _play_until(game, lambda g: g.ruleset.ballots.open(g.state) and g.ruleset.ballots.counted(g.state)):
            break
    else:
        pytest.fail(f"{variant}: no day with a ballot in four seeds")
    ballots = game.ruleset.ballots
    voter, target = next(iter(ballots.counted(game.state).items()))
    out = _gm(game, "void-vote", player=voter)
    assert not out.refusals and voter not in ballots.counted(game.state)
    assert [m.to for m in out.pms] == [voter]
    out = _gm(game, "enter-vote", player=voter, target=target)
    assert not out.refusals, out.refusals
    assert ballots.counted(game.state)[voter] == target
    assert len(out.log) == 2  # the GM line and the vote's


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_void_action_acts_on_the_actions(family: str) -> None:
    variant = FAMILIES[family]

    def acted(g: Game) -> bool:
        return any(g.ruleset.actions.pending(g.state, p) for p in g.state.players)

    for seed in (1, 2, 3, 4):
        game = Game(load_ruleset(variant), seed, load_spec(variant).players)
        if _play_until(game, acted):
            break
    else:
        pytest.fail(f"{variant}: no pending action in four seeds")
    actions = game.ruleset.actions
    p = next(p for p in game.state.players if actions.pending(game.state, p))
    entries = actions.pending(game.state, p)
    ap = p.extra.get("ap")
    out = _gm(game, "void-action", player=p.name)
    assert not out.refusals and not actions.pending(game.state, game.state.player(p.name))
    assert len(out.pms) == len(entries) and all(m.to == p.name for m in out.pms)
    assert all(e.what in m.body for e, m in zip(entries, out.pms, strict=True))
    if ap is not None and family == "n_lives":  # refunded through n_lives' withdraw
        assert game.state.player(p.name).extra["ap"] >= ap


# ---- one table of overrides: the admin CLI and the GM page are made from it ----------------

def _table() -> tuple:  # type: ignore[type-arg]
    from tianshen.rules import families

    return overrides.table([f.ruleset_class() for f in families().values()])


def test_the_admin_cli_options_equal_the_table() -> None:
    import typer

    from tianshen.cli import admin

    commands = dict(typer.main.get_command(admin).commands)
    common = {"--reason", "--game", "--db", "--config", "--at"}
    for o in _table():
        c = commands[o.name]
        arguments = [p.name for p in c.params if p.param_type_name == "argument"]
        options = {p.opts[0]: p.required for p in c.params if p.param_type_name == "option"}
        assert arguments == [a.name for a in o.args if a.positional], o.name
        assert set(options) == common | {a.flag for a in o.args if not a.positional}, o.name
        assert {f for f, required in options.items() if required} == \
            {"--reason"} | {a.flag for a in o.args if not a.positional and a.required}, o.name
        assert " ".join(c.help.split()) == o.help


def test_every_familys_overrides_are_in_the_table_and_the_page_has_a_word_for_each() -> None:
    from tianshen.web import views

    names = [o.name for o in _table()]
    every = set()
    for variant in available_variants():
        every |= set(load_ruleset(variant).gm_commands())
    assert sorted(names) == sorted(every)
    assert set(views.COMMAND_WORDS) == set(names) and "其他" not in views.COMMAND_WORDS.values()
    assert all(re.fullmatch(r"[\u4e00-\u9fff]+", w) for w in views.COMMAND_WORDS.values())


def test_a_familys_extra_is_declared_beside_its_method() -> None:
    from tianshen.rules import family_class

    assert [o.name for o in overrides.family_extras(family_class("classic"))] == ["flag-plagiarism"]
    assert [o.name for o in overrides.family_extras(family_class("butterfly_elder"))] == ["confirm-zombie"]
    assert overrides.family_extras(family_class("hex_survival")) == []


# ---- item 7: 重新投票 by PM is read as a vote in every family ---------------------------------

@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_a_revote_by_pm_is_answered_as_a_vote_by_pm(variant: str, players: int) -> None:
    """`重新投票 X` (how players answer 「请重新投票」) gets the answer `投票 X` gets: where to
    vote, never 「没有看懂」 (butterfly_elder kept its own vote words without it)."""
    ruleset = load_ruleset(variant)
    state = ruleset.setup(GameSetup(seats=default_seats(players), seed=3, start=START)).state
    voter, target = state.players[0].name, state.players[1].name

    def answer(verb: str) -> list[str]:
        pm = PmIn(id=verb, sender=voter, at=START + timedelta(hours=1), text=f"{verb} {target}")
        return [r.reason for r in ruleset.apply(state, pm).refusals]

    assert answer("重新投票") == answer("投票") != []
