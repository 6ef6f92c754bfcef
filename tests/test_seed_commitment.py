"""Issue 13 item 7, DECISIONS §0.6: the start post commits to the seed with a secret salt of
128 random bits, `sha256("<salt>:<seed>")`; the end post of every family reveals seed and
salt, and they check against the start post.  The salt changes no draw."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from tianshen.cli import app
from tianshen.core import rng
from tianshen.core.model import GmIn, Outcome
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.rules import load_ruleset
from tianshen.service.driver import GameDriver
from tianshen.sim.rehearsal import VESTS
from tianshen.store import Store

T0 = datetime(2026, 1, 1, 20, tzinfo=UTC)
VARIANTS = ["classic_10", "game_ten", "n_lives", "hex_survival_12", "butterfly_elder"]
SEED = 12345  # the config example's: found in 0.1 s from an unsalted hash


def setup_for(variant: str, salt: str | None, seed: int = SEED) -> GameSetup:
    n = load_ruleset(variant).spec.players
    return GameSetup(seats=[Seat(name=v, forum_name=f"{v}本人") for v in VESTS[:n]], seed=seed, salt=salt,
                     start=T0)


def texts(outcome: Outcome) -> list[str]:
    return [p.body for p in outcome.posts] + [m.body for m in outcome.pms]


def end_game(variant: str, salt: str) -> tuple[Outcome, Outcome]:
    r = load_ruleset(variant)
    start = r.setup(setup_for(variant, salt))
    end = r.apply(start.state, GmIn(id="end", at=T0 + timedelta(hours=1), command="end-game", reason="测试"))
    return start, end


def test_the_digest_is_salted_and_full_length() -> None:
    salt = "0123456789abcdef" * 2
    assert rng.seed_digest(SEED, salt) == hashlib.sha256(f"{salt}:{SEED}".encode()).hexdigest()
    assert rng.seed_digest(SEED, salt) != rng.seed_digest(SEED, "f" * 32)
    assert len(rng.seed_digest(SEED, salt)) == 64


def test_salts_are_128_random_bits_and_script_salts_are_repeatable() -> None:
    a, b = rng.new_salt(), rng.new_salt()
    assert a != b and rng.SALT_FORMAT.fullmatch(a) and len(a) == 32
    assert rng.derived_salt(7) == rng.derived_salt(7) != rng.derived_salt(8)
    assert rng.SALT_FORMAT.fullmatch(rng.derived_salt(7))


@pytest.mark.parametrize("bad", ["", "abc", "0123456789ABCDEF0123456789ABCDEF", "g" * 32, "12345"])
def test_a_short_or_malformed_salt_is_refused(bad: str) -> None:
    with pytest.raises(ValidationError, match="salt"):
        GameSetup(seats=[Seat(name="甲")], seed=1, salt=bad, start=T0)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_start_post_cannot_be_checked_from_the_seed_alone(variant: str) -> None:
    salt = rng.new_salt()
    start, _ = end_game(variant, salt)
    posted = "\n".join(texts(start))
    assert rng.seed_digest(SEED, salt) in posted
    unsalted = hashlib.sha256(str(SEED).encode()).hexdigest()
    assert unsalted[:16] not in posted and salt not in posted  # no post or PM before the end has it
    found = [s for s in range(100_000) if hashlib.sha256(str(s).encode()).hexdigest()[:16] in posted]
    assert found == []  # trying seeds no longer finds the deal


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_end_post_reveals_seed_and_salt_that_check_against_the_start(variant: str) -> None:
    salt = rng.new_salt()
    start, end = end_game(variant, salt)
    assert end.state.phase.kind == "over"
    body = "\n".join(p.body for p in end.posts)
    seed = int(re.search(r"本局随机种子：(\d+)", body).group(1))
    revealed = re.search(r"盐：([0-9a-f]{32,})", body).group(1)
    assert (seed, revealed) == (SEED, salt)
    assert f'sha256("{salt}:{SEED}")' in body  # how to check, in one line
    digest = hashlib.sha256(f"{revealed}:{seed}".encode()).hexdigest()
    assert digest in start.posts[0].body or any(digest in p.body for p in start.posts)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_salt_changes_no_draw(variant: str) -> None:
    r = load_ruleset(variant)
    a = r.setup(setup_for(variant, rng.new_salt())).state
    b = r.setup(setup_for(variant, rng.new_salt())).state
    assert [(p.role, p.extra) for p in a.players] == [(p.role, p.extra) for p in b.players]
    assert a.rng_draws == b.rng_draws and a.data == b.data


def test_a_setup_without_salt_is_dealt_the_same_and_derives_one() -> None:
    r = load_ruleset("classic_10")
    state = r.setup(setup_for("classic_10", None)).state
    assert state.salt == rng.derived_salt(SEED)


def test_a_registered_game_gets_a_secret_random_salt(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    store.upgrade()
    salts = []
    for name in ("a", "b"):
        game = GameDriver.register(store, name, "classic_10", setup_for("classic_10", None))
        salt = store.load_game(game).config["setup"]["salt"]
        assert rng.SALT_FORMAT.fullmatch(salt) and salt != rng.derived_salt(SEED)
        salts.append(salt)
    assert salts[0] != salts[1]  # the same typed seed, salted differently
    store.close()


def test_new_game_salts_a_typed_seed_and_status_public_hides_it(tmp_path: Path) -> None:
    db = f"sqlite:///{(tmp_path / 'n.db').as_posix()}"
    names = VESTS[:10]
    players = "\n".join(f'[[game.players]]\nname = "{n}"' for n in names)
    config = tmp_path / "c.toml"
    config.write_text(f'[database]\nurl = "{db}"\n[game]\nname = "g"\nruleset = "classic_10"\nseed = {SEED}\n'
                      f'start = "2099-01-01T20:00:00Z"\n{players}\n', encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(app, ["admin", "new-game", "--config", str(config)]).exit_code == 0
    assert runner.invoke(app, ["admin", "start", "--db", db]).exit_code == 0
    store = Store(db)
    record = store.load_game(store.game_id("g"))
    salt = record.config["setup"]["salt"]
    assert rng.SALT_FORMAT.fullmatch(salt) and salt != rng.derived_salt(SEED)
    outbox = [o.body for o in store.outbox(record.id)]
    assert any(rng.seed_digest(SEED, salt) in body for body in outbox)
    assert not any(salt in body for body in outbox)
    store.close()
    public = runner.invoke(app, ["admin", "status", "--public", "--db", db], env={"COLUMNS": "200"})
    assert public.exit_code == 0 and salt not in public.output and str(SEED) not in public.output


def test_rehearsals_and_replays_stay_repeatable(tmp_path: Path) -> None:
    from tianshen.replay import PhaseScript, Script, replay

    script = Script(ruleset="classic_10", seed=4, phase=[PhaseScript()])
    first, second = replay(script), replay(script)
    assert first == second
    body = "\n".join(first["phases"][0]["public"])
    assert rng.seed_digest(4, rng.derived_salt(4)) in body
    given = rng.new_salt()
    third = replay(Script(ruleset="classic_10", seed=4, salt=given, phase=[PhaseScript()]))
    assert rng.seed_digest(4, given) in "\n".join(third["phases"][0]["public"])
