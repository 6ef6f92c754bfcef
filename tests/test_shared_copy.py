"""`GameState.copy` copies what a step touches (issue 37): `data` and each player's `extra`
are `SharedDict`s whose values are copied when first read; whatever way the copy is
written to, the original stays as it was, and a failing input leaves `apply`'s state as it was."""

from __future__ import annotations

import pytest

from tianshen.core.model import DeadlineIn, GameState, Player, PmIn, SharedDict, peek, put
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


def _state() -> GameState:
    players = [Player(name="甲", forum_name="a", seat=1, extra={"hp": 3, "marks": ["x"]}),
               Player(name="乙", forum_name="b", seat=2)]
    return GameState(ruleset="classic", variant="classic_10", seed=1, players=players,
                     data={"day": {"votes": {"甲": "乙"}}, "log": [1, [2]], "n": 1, "untouched": {"big": [1, 2]}})


def test_a_copy_shares_what_it_has_not_read_and_nothing_it_has() -> None:
    state = _state()
    copied = state.copy()
    assert dict.__getitem__(copied.data, "untouched") is state.data["untouched"]  # not copied until read
    assert copied.data["untouched"] is not state.data["untouched"]
    assert copied.data["untouched"] == state.data["untouched"]


WRITES = [
    lambda d: d["day"]["votes"].update(乙="甲"),
    lambda d: d.get("day")["votes"].clear(),
    lambda d: d.setdefault("log", []).append(3),
    lambda d: d.pop("log")[1].append(3),
    lambda d: [v.append(9) for k, v in d.items() if k == "log"],
    lambda d: [v.clear() for v in d.values() if isinstance(v, dict)],
    lambda d: d.copy()["day"]["votes"].clear(),
    lambda d: (d | {})["log"].append(1),
    lambda d: d.popitem()[1]["big"].append(3),
    lambda d: d.update(n=2),
    lambda d: d.clear(),
]


@pytest.mark.parametrize("write", WRITES)
def test_no_write_through_the_copy_reaches_the_original(write) -> None:  # type: ignore[no-untyped-def]
    state = _state()
    before = state.model_dump_json()
    for copied in (state.copy(), state.copy().copy()):
        write(copied.data)
        copied.players[0].extra["marks"].append("y")
        copied.players[0].extra["hp"] -= 1
        copied.players[1].alive = False
        assert state.model_dump_json() == before
    assert copied.model_dump_json() != before


def test_a_value_written_is_the_copys_own() -> None:
    copied = _state().copy()
    mine: dict[str, list[int]] = {"a": []}
    copied.data["new"] = mine
    copied.data["new"]["a"].append(1)
    assert mine == {"a": [1]}
    copied.data.setdefault("other", mine)["a"].append(2)
    assert copied.data["new"] is copied.data["other"] is mine


def test_a_copy_writes_compares_and_reads_back_like_its_original() -> None:
    state = _state()
    copied = state.copy()
    assert copied == state
    assert copied.model_dump_json() == state.model_dump_json()
    assert GameState.model_validate_json(copied.model_dump_json()) == state
    assert type(copied.data) is SharedDict and type(copied.model_dump()["data"]) is dict


def test_a_failing_input_leaves_the_state_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fold that has changed the state when it fails (a bug): `apply` was folding into a
    copy, so the state it was given is as it was, and the next input folds on it."""
    ruleset = load_ruleset("classic_10")
    game = Game(ruleset, 2, 10)
    state = game.state
    before = state.model_dump_json()
    real = type(ruleset).on_pm

    def failing(self, state, pm):  # type: ignore[no-untyped-def]
        for p in state.players:
            p.alive = False
            p.extra["broken"] = True
        state.data.clear()
        state.phase.number = 99
        raise RuntimeError("a bug in the middle of a fold")

    monkeypatch.setattr(type(ruleset), "on_pm", failing)
    killer = next(p for p in state.players if p.role == "killer")
    with pytest.raises(RuntimeError):
        ruleset.apply(state, PmIn(id="1", sender=killer.name, at=state.phase.started_at, text="杀 1"))
    assert state.model_dump_json() == before
    monkeypatch.setattr(type(ruleset), "on_pm", real)
    due = ruleset.next_deadline(state)
    assert due is not None
    assert ruleset.apply(state, DeadlineIn(id="d", at=due.at, kind=due.kind)).state.phase.label != state.phase.label
    assert state.model_dump_json() == before


def test_apply_shares_the_players_it_does_not_write_and_no_write_reaches_the_original(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`apply` folds into the very players of the state it was given (`fold_sharing_players`):
    whatever the fold writes to a player — a field, the empty `extra` filled or replaced,
    a trial copy — the original reads as before, the outcome's state as written, and a
    player the fold did not write is shared, not copied; an `apply` on the new state then
    leaves both older states as they were."""
    ruleset = load_ruleset("classic_10")
    state = Game(ruleset, 2, 10).state
    before = state.model_dump_json()
    real = type(ruleset).on_pm

    def writing(self, st, pm):  # type: ignore[no-untyped-def]
        a, b, c, d = st.players[:4]
        a.alive, a.death_cause = False, "test"
        b.extra["mark"] = [1]
        c.extra = {"new": 1}
        field = "role"  # as the GM overrides write: by name
        setattr(d, field, "citizen")
        trial = st.copy()
        trial.players[4].alive = False
        return real(self, st, pm)

    monkeypatch.setattr(type(ruleset), "on_pm", writing)
    pm = PmIn(id="1", sender=state.players[5].name, at=state.phase.started_at, text="你好")
    new = ruleset.apply(state, pm).state
    assert state.model_dump_json() == before
    assert [p.alive for p in new.players[:2]] == [False, True] and new.players[0].death_cause == "test"
    assert new.players[1].extra == {"mark": [1]} and new.players[2].extra == {"new": 1}
    assert new.players[3].role == "citizen" and new.players[4].alive
    assert all(new.players[i] is not state.players[i] for i in range(4))
    assert all(new.players[i] is state.players[i] for i in range(4, 10))  # not copied
    middle = new.model_dump_json()
    newer = ruleset.apply(new, PmIn(id="2", sender=new.players[6].name, at=pm.at, text="你好")).state
    assert state.model_dump_json() == before and new.model_dump_json() == middle
    assert newer.players[0].death_cause == "test" and newer.players[4].alive is True
    newer.players[1].extra["mark"].append(2)  # the copy made for `new` is not `newer`'s
    assert new.model_dump_json() == middle


def test_an_empty_extra_filled_in_place_alone_never_reaches_the_original(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fold whose only change to a player is filling his empty `extra` in place (no field
    written, so nothing logged): the outcome's state gets its own copy of him, the original
    reads as before, and an `apply` on the new state leaves the new one as it was."""
    ruleset = load_ruleset("classic_10")
    state = Game(ruleset, 2, 10).state
    before = state.model_dump_json()
    real = type(ruleset).on_pm

    def filling(self, st, pm):  # type: ignore[no-untyped-def]
        st.players[3].extra["mark"] = [1]
        return real(self, st, pm)

    monkeypatch.setattr(type(ruleset), "on_pm", filling)
    pm = PmIn(id="1", sender=state.players[5].name, at=state.phase.started_at, text="你好")
    new = ruleset.apply(state, pm).state
    assert state.model_dump_json() == before
    assert new.players[3].extra == {"mark": [1]} and new.players[3] is not state.players[3]
    assert state.players[3].extra == {}


def test_put_copies_only_the_dicts_on_its_way_and_nothing_shared_is_written_after() -> None:
    """`put` into `apply`'s copy: the dicts on the way are the copy's, the rest of the value
    still the original's (not copied), and a later read of the value copies it whole, so
    no write after it reaches the original; a missing dict on the way is made."""
    state = _state()
    state.data["day"]["wills"] = {"甲": ["乙"]}
    before = state.model_dump_json()
    copied = state.copy()
    put(copied.data, ("day", "votes"), "乙", "甲")
    put(copied.data, ("day", "new", "deeper"), "k", 1)
    day = peek(copied.data, "day")
    assert day["votes"] == {"甲": "乙", "乙": "甲"} and day["new"] == {"deeper": {"k": 1}}
    assert day["wills"] is state.data["day"]["wills"]  # not copied by the put
    assert state.model_dump_json() == before
    copied.data["day"]["wills"]["甲"].append("丙")  # a read after the put: the whole day copied
    copied.data["day"]["votes"].clear()
    assert state.model_dump_json() == before
    in_place = _state()
    put(in_place.data, ("day", "votes"), "乙", "甲")
    put(in_place.data, ("fresh",), "a", 1)
    assert in_place.data["day"]["votes"] == {"甲": "乙", "乙": "甲"} and in_place.data["fresh"] == {"a": 1}


def test_two_threads_folding_at_once_each_keep_their_own_writes() -> None:
    """The web pages fold different games in several threads at once: a fold's log of player
    writes is its thread's own, so neither original changes and each new state holds its own
    fold's write, however the two folds interleave."""
    import threading

    from tianshen.core.model import Outcome, fold_sharing_players

    ruleset = load_ruleset("classic_10")
    first, second = Game(ruleset, 2, 10).state, Game(ruleset, 3, 10).state
    before = first.model_dump_json(), second.model_dump_json()
    started, go_on, written = threading.Event(), threading.Event(), threading.Event()

    def slow(st: GameState, event: object) -> Outcome:  # writes while the other fold runs
        started.set()
        assert go_on.wait(30)
        st.players[0].alive = False
        written.set()
        return Outcome(state=st)

    def quick(st: GameState, event: object) -> Outcome:
        go_on.set()
        assert written.wait(30)
        st.players[1].alive = False
        return Outcome(state=st)

    out: list[Outcome] = []
    worker = threading.Thread(target=lambda: out.append(fold_sharing_players(slow, first, None)))
    worker.start()
    assert started.wait(30)
    other = fold_sharing_players(quick, second, None)
    worker.join(30)
    assert (first.model_dump_json(), second.model_dump_json()) == before
    assert [p.alive for p in out[0].state.players[:2]] == [False, True]
    assert [p.alive for p in other.state.players[:2]] == [True, False]


def _every_variant() -> list[tuple[str, int]]:
    from tianshen.specs import available_variants, load_spec

    out = []
    for variant in available_variants():
        spec = load_spec(variant)
        out += [(variant, n) for n in (spec.player_counts or [spec.players])]
    return out


@pytest.mark.parametrize("variant,players", _every_variant())
def test_no_fold_of_a_whole_game_changes_any_earlier_state(variant: str, players: int) -> None:
    """Whole games of every variant folded by `apply`, the simulated players reading every
    state: each state's JSON, taken when `apply` made it, is the same at the end of the game,
    so no write of a later fold reached an earlier state through a value they share (issue
    37: a step copies only what it touches)."""

    class Keeping(Game):
        def fold(self, event):  # type: ignore[no-untyped-def]
            state = self.state
            self.state = self._took(self.ruleset.apply(state, event))
            kept.append((state, taken.pop()))
            taken.append(self.state.model_dump_json())

    ruleset = load_ruleset(variant)
    for seed in (1, 2):
        kept: list[tuple[GameState, str]] = []
        game = Keeping(ruleset, seed, players)
        taken = [game.state.model_dump_json()]
        game.play()
        assert len(kept) > 20
        changed = [i for i, (state, json) in enumerate(kept) if state.model_dump_json() != json]
        assert not changed, f"{variant} seed {seed}: states {changed[:5]} changed after apply made them"
