"""签到 (001 §3.2, §6.1.4), when a ruleset's data turns it on: reply to the player list within
24 h, or be out of the game, with a substitute called."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from board_game import board_game
from classic_helpers import ROLES_10, T0, Game, main_posts
from tianshen.core.model import PostIn
from tianshen.core.ruleset import GameSetup, Seat
from tianshen.rules import load_ruleset


def game(substitutes: list[str]) -> Game:
    g = Game(10)
    r = load_ruleset("classic_10")
    r.spec.options["checkin_hours"] = 24
    g.ruleset = r
    g.state = r.setup(GameSetup(seats=[Seat(name=n) for n in ROLES_10], seed=7, start=T0, fixed_roles=ROLES_10,
                                substitutes=substitutes)).state
    return g


def checkin(g: Game, name: str, hours: float) -> None:
    g._apply(PostIn(id=g._id("p"), thread="main", author=name, at=g.at(hours), text="签到"))


def test_who_has_not_checked_in_is_out_and_a_substitute_is_called() -> None:
    g = game(["替补甲"])
    for i, name in enumerate(n for n in ROLES_10 if n != "庚"):
        checkin(g, name, 1 + i * 0.1)
    due = g.ruleset.next_deadline(g.state)
    assert (due.kind, due.at) == ("checkin_end", T0 + timedelta(hours=24))
    out = g.advance("checkin_end")
    assert "庚没有在规定时间内跟帖签到" in main_posts(out)
    assert g.state.data["substitution"]["seats"] == ["庚"]
    assert [m.to for m in out.pms] == ["替补甲"]
    assert g.state.phase.ends_at == T0 + timedelta(hours=36)  # night 1 extended by the 交替期


def test_without_substitutes_the_seat_is_lost() -> None:
    g = game([])
    for name in ROLES_10:
        if name != "甲":
            checkin(g, name, 2)
    checkin(g, "甲", 25)  # too late
    out = g.advance("checkin_end")
    assert not g.alive("甲") and g.state.player("甲").death_cause == "wasted"
    assert "杀手" in main_posts(out)
    assert g.ruleset.next_deadline(g.state).kind == "night_end"


def test_everyone_checked_in_changes_nothing() -> None:
    g = game(["替补甲"])
    for name in ROLES_10:
        checkin(g, name, 3)
    out = g.advance("checkin_end")
    assert not out.posts and not out.pms and "substitution" not in g.state.data


def test_the_driver_reads_replies_to_the_player_list(tmp_path, monkeypatch) -> None:
    """A variant that turns check-in on is data only (rulesets/*.toml)."""
    base = Path(__file__).resolve().parents[1] / "rulesets" / "classic_10.toml"
    (tmp_path / "classic_10_checkin.toml").write_text(
        f'include = ["{base.as_posix()}"]\n[options]\ncheckin_hours = 24\n', encoding="utf-8")
    monkeypatch.setenv("TIANSHEN_RULESETS", str(tmp_path))
    g = board_game(tmp_path, variant="classic_10_checkin", seed=7)
    g.clock.set(g.at(1))
    for name in ROLES_10:
        if name != "癸":
            g.board.post(name, g.thread("main"), "签到")
    g.run_to(24)
    state = g.driver.state()
    assert not state.player("癸").alive and all(state.player(n).alive for n in ROLES_10 if n != "癸")
    g.store.close()


def test_simulated_players_check_in(tmp_path, monkeypatch) -> None:
    """A whole rehearsal of a variant with check-in: the sims reply to the list, nobody is lost."""
    from tianshen.sim.rehearsal import rehearse

    base = Path(__file__).resolve().parents[1] / "rulesets" / "classic_8.toml"
    (tmp_path / "classic_8_checkin.toml").write_text(
        f'include = ["{base.as_posix()}"]\n[options]\ncheckin_hours = 24\n', encoding="utf-8")
    monkeypatch.setenv("TIANSHEN_RULESETS", str(tmp_path))
    result = rehearse("classic_8_checkin", 2, f"sqlite:///{tmp_path / 'r.db'}")
    assert result.winner is not None
    assert all(p.death_cause != "wasted" for p in result.state.players)
