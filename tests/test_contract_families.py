"""The contract every ruleset family keeps (issue 24), run over every shipped variant.

- the event log of a rehearsal refolds to the stored state, and every PM in it was answered;
- random play reaches game over;
- every GM override refuses bad arguments with one clear refusal, the same words in every
  family, never an exception;
- observation(public) and observation(seat) never hold another seat's secret.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tianshen.core.fold import fold, steps
from tianshen.core.model import GameState, GmIn, PmIn
from tianshen.core.observation import GM, observation
from tianshen.core.ruleset import GameSetup, Ruleset
from tianshen.rules import family, game_ruleset, load_ruleset
from tianshen.sim.montecarlo import Game
from tianshen.sim.rehearsal import default_seats, rehearse
from tianshen.specs import available_variants, load_spec
from tianshen.store import Store

START = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)


def _cases() -> list[tuple[str, int]]:
    """Every shipped variant, at each number of players it is played by."""
    cases = []
    for variant in available_variants():
        spec = load_spec(variant)
        cases += [(variant, n) for n in spec.player_counts or [spec.players]]
    return cases


CASES = _cases()
IDS = [f"{v}-{n}" for v, n in CASES]
VARIANTS = available_variants()


def _night_one(variant: str, players: int, seed: int = 3) -> tuple[Ruleset, GameState]:
    ruleset = load_ruleset(variant)
    setup = GameSetup(seats=default_seats(players), seed=seed, start=START)
    return ruleset, ruleset.setup(setup).state


# ---- the event log and the PMs ----------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_the_event_log_refolds_and_every_pm_is_answered(tmp_path: Path, variant: str) -> None:
    db_url = f"sqlite:///{tmp_path / 'c.db'}"
    result = rehearse(variant, 5, db_url)
    store = Store(db_url)
    record = store.load_game(result.game_id)
    events = store.events(result.game_id)
    store.close()
    ruleset = game_ruleset(record.ruleset, record.config)
    unanswered = [s.input.text for s in steps(ruleset, events)
                  if isinstance(s.input, PmIn) and not any(m.to == s.input.sender for m in s.outcome.pms)]
    state = fold(ruleset, events)
    assert state is not None
    assert json.loads(state.model_dump_json()) == json.loads(record.state_json)
    assert state.phase.kind == "over" and state.winner == result.winner
    assert unanswered == []
    middle = events[len(events) // 2].seq
    before = [s for s in steps(ruleset, events) if s.seq < middle][-1].outcome.state
    assert fold(ruleset, events, before_seq=middle) == before


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_every_kind_of_pm_is_answered(variant: str, players: int) -> None:
    ruleset, state = _night_one(variant, players)
    at = START + timedelta(minutes=30)
    someone = state.players[0].name
    for sender, text in ((someone, ""), (someone, "帮助"), (someone, "胡言乱语 ###"), (someone, "杀 无此人"),
                         ("陌生人", "你好"), (someone, "\x00\ud800")):
        outcome = ruleset.apply(state, PmIn(id=f"pm-{text!r}", sender=sender, at=at, text=text))
        assert any(m.to == sender for m in outcome.pms), (sender, text)


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_random_play_reaches_game_over(variant: str, players: int) -> None:
    for seed in (1, 2):
        state = Game(load_ruleset(variant), seed, players).play()
        assert state.phase.kind == "over", (variant, seed)


# ---- GM overrides ---------------------------------------------------------------------

NAMED = ("void-action", "enter-action", "void-vote", "enter-vote", "reject-declaration", "flag-plagiarism",
         "modkill", "leave", "confirm-zombie", "cancel-substitution")
COMMANDS = ("advance", "extend", "pause", "resume", *NAMED, "substitute", "end-game")


def _gm(ruleset: Ruleset, state: GameState, command: str, **args: object) -> tuple[GameState, str | None]:
    """The state after the override and its refusal (None when it was carried out)."""
    gm = GmIn(id=f"gm-{command}", at=START + timedelta(hours=1), command=command, args=args, reason="测试")
    outcome = ruleset.apply(state, gm)
    return outcome.state, outcome.refusals[0].reason if outcome.refusals else None


def _refusals(variant: str, players: int, command: str, args: dict[str, object]) -> str | None:
    ruleset, state = _night_one(variant, players)
    if command not in ruleset.gm_commands():
        return "n/a"
    try:
        return _gm(ruleset, state, command, **args)[1]
    except Exception as exc:  # the contract: never an exception
        return f"exception {exc!r}"


BAD_ARGS: list[tuple[str, dict[str, object], str]] = [
    *[(c, {}, "missing player") for c in NAMED],
    *[(c, {"player": "无此人"}, "unknown player") for c in NAMED],
    ("extend", {"hours": "abc"}, "hours not a number"),
    ("extend", {"hours": -3}, "negative hours"),
    ("extend", {}, "no hours"),
    ("leave", {"player": "白狐", "hours": "abc"}, "hours not a number"),
    ("leave", {"player": "白狐", "hours": -3}, "negative hours"),
    ("leave", {"player": "白狐"}, "no hours"),
    ("leave", {"player": "白狐", "hours": "nan"}, "nan hours"),
    ("extend", {"hours": "inf"}, "infinite hours"),
    ("end-game", {"winner": "nobody"}, "unknown winner"),
    ("substitute", {}, "no seats"),
    ("substitute", {"players": "无此人"}, "unknown seat"),
    ("resume", {}, "not paused"),
]


@pytest.mark.parametrize(("command", "args", "case"), BAD_ARGS, ids=[f"{c}-{k}" for c, _, k in BAD_ARGS])
def test_every_override_refuses_bad_arguments_the_same_way_in_every_family(command: str, args: dict[str, object],
                                                                          case: str) -> None:
    reasons = {f"{v}-{n}": _refusals(v, n, command, args) for v, n in CASES}
    # the players or winners a refusal lists differ with the variant
    given = {k: r.split("游戏者名单")[0].split(" one of ")[0] if r else r for k, r in reasons.items() if r != "n/a"}
    assert given, "no family has the command"
    assert all(given.values()), f"carried out: {[k for k, r in given.items() if not r]}"
    assert len(set(given.values())) == 1, given
    assert "Traceback" not in next(iter(given.values())) and "\n" not in next(iter(given.values()))


def test_an_unknown_command_is_refused_alike() -> None:
    reasons = set()
    for variant, players in CASES:
        ruleset, state = _night_one(variant, players)
        reasons.add(str(_gm(ruleset, state, "no-such-thing")[1]).split(";")[0])
    assert reasons == {"unknown command 'no-such-thing'"}


def test_every_override_needs_a_reason_in_every_family() -> None:
    for variant, players in CASES:
        ruleset, state = _night_one(variant, players)
        gm = GmIn(id="gm", at=START + timedelta(hours=1), command="pause", args={}, reason=" ")
        assert ruleset.apply(state, gm).refusals, variant


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_end_game_takes_the_winners_its_rules_can_declare(variant: str, players: int) -> None:
    """One rule for every family: a faction, or a draw where the ruleset's own victory can end in
    one (classic: nobody left alive; game_ten: `simultaneous_win = "draw"`; the others: always)."""
    ruleset, state = _night_one(variant, players)
    for faction in ruleset.spec.factions:
        over, refused = _gm(ruleset, state, "end-game", winner=faction)
        assert refused is None and over.winner == faction and over.phase.kind == "over"
    over, refused = _gm(ruleset, state, "end-game", winner="draw")
    if ruleset.can_draw():
        assert refused is None and over.winner == "draw"
    else:
        assert refused == f"winner must be one of {', '.join(ruleset.spec.factions)}"


def test_a_draw_is_taken_only_where_the_options_allow_one() -> None:
    ruleset = load_ruleset("game_ten")
    assert not ruleset.can_draw()
    ruleset.spec.options["simultaneous_win"] = "draw"  # 001 B36
    assert ruleset.can_draw()
    butterfly = load_ruleset("butterfly_elder")
    assert butterfly.can_draw()
    butterfly.spec.options["simultaneous"] = "good"  # DECISIONS E9
    assert not butterfly.can_draw()
    _, state = _night_one("butterfly_elder", 16)
    assert _gm(butterfly, state, "end-game", winner="draw")[1] == "winner must be one of killers, good, independents"


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_no_family_keeps_the_pause_after_game_over(variant: str, players: int) -> None:
    ruleset, state = _night_one(variant, players)
    state, refused = _gm(ruleset, state, "pause")
    assert refused is None and state.data.get("paused_at")
    state, refused = _gm(ruleset, state, "end-game")
    assert refused is None and state.phase.kind == "over"
    assert "paused_at" not in state.data


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_extend_and_leave_move_the_deadline_in_every_family(variant: str, players: int) -> None:
    ruleset, state = _night_one(variant, players)
    before = ruleset.schedule(state)
    assert before is not None
    later, refused = _gm(ruleset, state, "extend", hours=2)
    assert refused is None and ruleset.schedule(later).at == before.at + timedelta(hours=2)  # type: ignore[union-attr]
    later, refused = _gm(ruleset, state, "leave", player=state.players[0].name, hours="1.5")
    assert refused is None
    assert ruleset.schedule(later).at == before.at + timedelta(hours=1.5)  # type: ignore[union-attr]
    if ruleset.spec.ruleset == "butterfly_elder":  # 004 补充 二 1: and excused from lurking
        assert state.players[0].name in later.data["leave"]


# ---- observation ----------------------------------------------------------------------

SECRET_KEYS = {"role", "role_name", "faction"}


def _step(game: Game) -> None:
    """One turn of `Game.play`: the sims act, the clock jumps to the next deadline."""
    deadline = game.ruleset.next_deadline(game.state)
    assert deadline is not None
    game.now = max(game.now, min(game.now + timedelta(hours=1), deadline.at - timedelta(minutes=1)))
    game.sims.act(game.state, game.now, game.thread)
    pending = game._read()
    game.now = max(game.now, deadline.at)
    game.advance(pending)


def _states(variant: str, players: int) -> list[GameState]:
    """Night 1, and a state each later phase of a random game."""
    game = Game(load_ruleset(variant), 4, players)
    seen = [game.state.copy()]
    last = game.state.phase.label
    for _ in range(200):
        if game.state.phase.kind == "over":
            break
        _step(game)
        if game.state.phase.label != last:
            seen.append(game.state.copy())
            last = game.state.phase.label
    return seen


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_observation_never_holds_another_seats_secret(variant: str, players: int) -> None:
    ruleset = load_ruleset(variant)
    for state in _states(variant, players):
        public = observation(ruleset, state, None)
        assert "me" not in public
        for row in public["players"]:
            assert not SECRET_KEYS & set(row), row
        for viewer in state.players:
            seen = observation(ruleset, state, viewer.name)
            assert seen["me"]["name"] == viewer.name and seen["me"]["role"] == viewer.role
            assert seen["players"] == public["players"]
            assert set(seen) - {"me"} == set(public)
        gm = observation(ruleset, state, GM)
        assert [row["role"] for row in gm["players"]] == [p.role for p in state.players]


def test_the_public_observation_shows_what_the_dead_were_announced_as() -> None:
    ruleset = load_ruleset("classic_10")
    state = _states("classic_10", 10)[-1]
    public = observation(ruleset, state, None)
    for p, row in zip(state.players, public["players"], strict=True):
        assert row["alive"] == p.alive
        assert row.get("identity", "") == ("" if p.alive else ruleset.public_identity(state, p))


@pytest.mark.parametrize("variant", ["classic_10", "game_ten", "n_lives"])
def test_the_public_count_is_the_answer_to_a_count_pm(variant: str) -> None:
    """The web pages and the observation read the count from the ruleset (no faked 「票数」 PM),
    and it says what a player who asks is told."""
    ruleset = load_ruleset(variant)
    game = Game(ruleset, 2, load_spec(variant).players)
    while game.state.phase.kind != "day" or ruleset.vote_count(game.state) is None:
        _step(game)
    for _ in range(3):  # a few votes in
        game.now += timedelta(hours=1)
        game.sims.act(game.state, game.now, game.thread)
        for event in game._read():
            game.fold(event)
    asker = next(p for p in game.state.players if p.alive)
    reply = ruleset.apply(game.state, PmIn(id="ask", sender=asker.name, at=game.now, text="票数")).pms[-1].body
    count = observation(ruleset, game.state, None)["count"]
    assert count["text"] and count["text"] in reply


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_modkill_removes_once_and_refuses_the_dead_alike(variant: str, players: int) -> None:
    ruleset, state = _night_one(variant, players)
    name = state.players[0].name
    state, refused = _gm(ruleset, state, "modkill", player=name)
    assert refused is None and not state.player(name).alive and state.player(name).death_cause == "modkill"
    _, refused = _gm(ruleset, state, "modkill", player=name)
    assert refused == f"{name} is already out"


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_every_death_is_a_typed_event_of_the_input_that_caused_it(variant: str, players: int) -> None:
    game = Game(load_ruleset(variant), 3, players)
    final = game.play()
    deaths = [d for o in game.outcomes for d in o.deaths]
    assert len({d.name for d in deaths}) == len(deaths) or variant == "game_ten"  # game_ten revives
    for p in final.players:
        if not p.alive:
            last = [d for d in deaths if d.name == p.name][-1]
            assert (last.cause, last.phase) == (p.death_cause, p.died_in)
    assert deaths, "a game without a death"


def test_the_core_texts_have_one_copy() -> None:
    """rulesets/_core.toml holds the texts the core speaks; every variant gets them from it
    (a family file may still set one of its own)."""
    import tomllib

    from tianshen.specs import rulesets_dirs

    shipped = next(d for d in rulesets_dirs() if (d / "_core.toml").is_file())
    core = tomllib.loads((shipped / "_core.toml").read_text(encoding="utf-8"))["texts"]
    for name in ("_forum_common.toml", "_hex_survival_common.toml", "butterfly_elder.toml", "n_lives.toml"):
        own = tomllib.loads((shipped / name).read_text(encoding="utf-8")).get("texts", {})
        assert not set(core) & set(own), name
    for variant in VARIANTS:
        texts = load_spec(variant).texts
        assert all(texts[k] == v for k, v in core.items()), variant


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_the_rules_events_come_with_their_log_lines(variant: str, players: int) -> None:
    """Typed events (core.events): each one's line is in the GM log of its outcome, and every
    kind is one the balance report counts (the family's record, core.family.Family.events)."""
    ruleset = load_ruleset(variant)
    game = Game(ruleset, 2, players)
    game.play()
    events = [(e, o) for o in game.outcomes for e in o.events]
    for event, outcome in events:
        if event.tally is not None:  # a vote's count (core.tally): its line when it has one
            assert event.kind == "tally" and (event.line in outcome.log or not event.line)
            continue
        assert event.line in outcome.log
        assert event.kind in family(ruleset.spec.ruleset).events
    assert events or ruleset.spec.ruleset in ("classic", "n_lives")  # a quiet game is possible there


@pytest.mark.parametrize(("variant", "players"), CASES, ids=IDS)
def test_every_override_is_an_admin_command_and_none_raises(variant: str, players: int) -> None:
    """A helper on the Ruleset must not pass for a GM command (gm_<name> is the command
    table), and each command, given nothing, is carried out or refused, never raises."""
    from tianshen.cli import admin

    admin_commands = {c.name or (c.callback.__name__.replace("_", "-") if c.callback else "")
                      for c in admin.registered_commands}
    ruleset, state = _night_one(variant, players)
    for command in ruleset.gm_commands():
        assert command in admin_commands, command
        _gm(ruleset, state, command)  # no exception


def test_a_seat_sees_what_its_role_pm_told_it() -> None:
    """observation(seat): a killer's partner (002 杀手, told in the role PM), none for a
    commoner; an n_lives player's own cards."""
    ruleset = load_ruleset("classic_10")
    setup = GameSetup(seats=default_seats(10), seed=3, start=START)
    outcome = ruleset.setup(setup)
    state = outcome.state
    killers = [p.name for p in state.players if p.faction == "killers"]
    for name in killers:
        partners = observation(ruleset, state, name)["me"]["partners"]
        assert partners == [k for k in killers if k != name]
        role_pm = next(m.body for m in outcome.pms if state.by_forum_name(m.to) is state.player(name))
        assert all(q in role_pm for q in partners)
    commoner = next(p.name for p in state.players if p.role == "commoner")
    assert observation(ruleset, state, commoner)["me"]["partners"] == []
    n_lives, nl_state = _night_one("n_lives", 6)
    me = observation(n_lives, nl_state, nl_state.players[0].name)["me"]
    assert me["cards"] and me["cards"] == n_lives.player_view(nl_state, nl_state.players[0].name)["cards"]
