"""The game model is plain slotted classes since issue 37, not pydantic: its JSON must stay
what pydantic wrote byte for byte (stored states and event payloads, the golden digests), and
what pydantic wrote must read back the same.  The pydantic models below are the old ones."""

from __future__ import annotations

import json.encoder
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from tianshen.core import model
from tianshen.core.fold import stored_input
from tianshen.core.model import DeadlineIn, GameState, GmIn, InputEnvelope, PmIn, PostIn
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game


class OldPlayer(BaseModel):
    name: str
    forum_name: str
    seat: int
    role: str = ""
    faction: str = ""
    alive: bool = True
    died_in: str | None = None
    death_cause: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


class OldPhase(BaseModel):
    kind: Literal["setup", "night", "day", "over"] = "setup"
    number: int = 0
    started_at: datetime | None = None
    ends_at: datetime | None = None
    step: str = ""


class OldGameState(BaseModel):
    ruleset: str
    variant: str
    seed: int
    salt: str = ""
    rng_draws: int = 0
    players: list[OldPlayer]
    phase: OldPhase = Field(default_factory=OldPhase)
    winner: str | None = None
    zone: str = "Asia/Shanghai"
    data: dict[str, Any] = Field(default_factory=dict)


class OldPmIn(BaseModel):
    type: Literal["pm"] = "pm"
    id: str
    sender: str
    at: datetime
    text: str


class OldPostIn(BaseModel):
    type: Literal["post"] = "post"
    id: str
    thread: str
    author: str
    at: datetime
    text: str
    edited: bool = False
    original_text: str | None = None


class OldDeadlineIn(BaseModel):
    type: Literal["deadline"] = "deadline"
    id: str
    at: datetime
    kind: str


class OldGmIn(BaseModel):
    type: Literal["gm"] = "gm"
    id: str
    at: datetime
    command: str
    args: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""


TIMES = [datetime(2026, 3, 1, 20, 0, tzinfo=UTC),
         datetime(2026, 3, 1, 20, 0, 0, 500, tzinfo=UTC),
         datetime(2026, 3, 1, 20, 0, 7, tzinfo=timezone(timedelta(hours=8))),
         datetime(2026, 3, 1, 20, 0, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
         datetime(2026, 3, 1, 20, 0)]


@pytest.mark.parametrize("variant,players", [("classic_10", None), ("n_lives", 7), ("hex_survival_12", None),
                                             ("butterfly_elder", None), ("game_ten", None)])
def test_every_state_of_a_game_writes_what_pydantic_wrote(variant: str, players: int | None) -> None:
    ruleset = load_ruleset(variant)
    game = Game(ruleset, 4, players or ruleset.spec.players)
    states = []
    fold = game.fold

    def kept(event: Any) -> None:
        fold(event)
        states.append(game.state.model_dump_json())

    game.fold = kept  # type: ignore[method-assign]
    game.play()
    for written in states[::5] + states[-1:]:
        old = OldGameState.model_validate_json(written)
        assert old.model_dump_json() == written
        new = GameState.model_validate_json(written)
        assert new.model_dump_json() == written
        assert new.model_dump(mode="json") == old.model_dump(mode="json")


def test_times_and_odd_values_in_the_state_are_written_as_pydantic_did() -> None:
    for at in TIMES:
        data = {"at": at, "t": (1, "二"), "f": 1.5, "s": "中\n\x00\"\\", "n": None, "list": [at, {"x": at}]}
        raw = dict(ruleset="classic", variant="classic_10", seed=3, players=[dict(name="甲", forum_name="a", seat=1)],
                   phase=dict(kind="night", number=1, started_at=at, ends_at=at + timedelta(hours=1)), data=data)
        new = GameState(ruleset="classic", variant="classic_10", seed=3, players=[], data=data)
        new.players = GameState.model_validate(raw).players
        new.phase = GameState.model_validate(raw).phase
        old = OldGameState.model_validate(raw)
        assert new.model_dump_json() == old.model_dump_json()
        assert GameState.model_validate_json(old.model_dump_json()).phase.ends_at == at + timedelta(hours=1)


def test_a_state_written_before_some_fields_existed_reads_with_their_defaults() -> None:
    old = '{"ruleset":"classic","variant":"classic_10","seed":1,"players":[{"name":"甲","forum_name":"甲","seat":1}]}'
    state = GameState.model_validate_json(old)
    assert state.model_dump_json() == OldGameState.model_validate_json(old).model_dump_json()


def test_inputs_write_and_read_what_pydantic_did() -> None:
    for at in TIMES:
        pairs = [(PmIn(id="1", sender="甲", at=at, text="杀 乙\n"), OldPmIn(id="1", sender="甲", at=at, text="杀 乙\n")),
                 (PostIn(id="2", thread="vote:1", author="乙", at=at, text="投票 甲", edited=True, original_text="x"),
                  OldPostIn(id="2", thread="vote:1", author="乙", at=at, text="投票 甲", edited=True,
                            original_text="x")),
                 (PostIn(id="3", thread="main", author="乙", at=at, text="好"),
                  OldPostIn(id="3", thread="main", author="乙", at=at, text="好")),
                 (DeadlineIn(id="4", at=at, kind="dawn"), OldDeadlineIn(id="4", at=at, kind="dawn")),
                 (GmIn(id="5", at=at, command="extend", args={"hours": 2.5, "last_seen": {"甲": at.isoformat()}},
                       reason="断网"),
                  OldGmIn(id="5", at=at, command="extend", args={"hours": 2.5, "last_seen": {"甲": at.isoformat()}},
                          reason="断网"))]
        for new, old in pairs:
            written = old.model_dump_json()
            assert new.model_dump_json() == written
            assert stored_input(written) == new
            assert type(new).model_validate_json(written) == new
            assert InputEnvelope.model_validate_json(InputEnvelope(input=new).model_dump_json()).input == new
            assert stored_input(written).at == at


def test_an_unknown_input_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown input type"):
        stored_input('{"type":"telegram","id":"1"}')


_ZONES = st.sampled_from([UTC, timezone(timedelta(hours=8)), timezone(timedelta(hours=-5, minutes=-30)), None])
_AT = st.builds(lambda at, zone: at.replace(tzinfo=zone), st.datetimes(), _ZONES)


@settings(max_examples=300, deadline=None)
@given(st.text(), st.text(), st.text(), _AT, st.booleans(), st.none() | st.text())
def test_an_input_written_at_once_is_what_pydantic_wrote(a: str, b: str, text: str, at: datetime, edited: bool,
                                                        original: str | None) -> None:
    """The inputs' own `model_dump_json` (issue 37: no dict, no encoder call) against
    pydantic's, any text (quotes, backslashes, control and non-BMP characters) and time."""
    pm = PmIn(id=a, sender=b, at=at, text=text)
    post = PostIn(id=a, thread=b, author=b, at=at, text=text, edited=edited, original_text=original)
    deadline = DeadlineIn(id=a, at=at, kind=text)
    olds = [OldPmIn(id=pm.id, sender=pm.sender, at=at, text=pm.text),
            OldPostIn(id=a, thread=b, author=post.author, at=at, text=post.text, edited=edited,
                      original_text=post.original_text),
            OldDeadlineIn(id=a, at=at, kind=text)]
    for new, old in zip((pm, post, deadline), olds, strict=True):
        written = old.model_dump_json()
        assert new.model_dump_json() == written
        assert model._encode(new._dict()) == written  # the general way, as before
        assert stored_input(written) == new


def test_an_input_is_written_without_its_dict_and_odd_fields_the_general_way(monkeypatch: pytest.MonkeyPatch) -> None:
    at = datetime(2026, 3, 1, 20, 0, 0, 500, tzinfo=UTC)
    inputs = [PmIn(id="1", sender="甲", at=at, text="杀 乙"), DeadlineIn(id="4", at=at, kind="dawn"),
              PostIn(id="2", thread="vote:1", author="乙", at=at, text="投票 甲", edited=True, original_text="x")]
    written = [i.model_dump_json() for i in inputs]
    for cls in (PmIn, PostIn, DeadlineIn):
        monkeypatch.setattr(cls, "_dict", lambda self: pytest.fail("the input's dict was built"))
    assert [i.model_dump_json() for i in inputs] == written
    monkeypatch.undo()
    odd = PostIn(id="2", thread="vote:1", author="乙", at=at, text="投票 甲")
    odd.edited = 1  # type: ignore[assignment]  # (not what an input makes: written as the encoder writes it)
    assert odd.model_dump_json() == model._encode(odd._dict()) and '"edited":1' in odd.model_dump_json()


def test_a_state_is_written_by_the_c_encoder_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_dumps` calls the C encoder itself (no `JSONEncoder.iterencode` a call), same bytes."""
    game = Game(load_ruleset("classic_10"), 4, 10)
    game.play()
    data = game.state._dict()
    written = model._encode(data)
    monkeypatch.setattr(json.encoder.JSONEncoder, "iterencode", lambda *a, **k: pytest.fail("through iterencode"))
    assert model._c_encode is not None and model._dumps(data) == written
    assert game.state.model_dump_json() == written
