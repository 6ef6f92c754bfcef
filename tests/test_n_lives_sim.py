"""Whole `n_lives` rehearsals with the simulated players (sim/n_lives.py) at 5, 6 and 7
players: the game ends, every PM the sims send is accepted, and a seed repeats."""

from __future__ import annotations

from pathlib import Path

import pytest

from tianshen.sim.rehearsal import RehearsalResult, rehearse
from tianshen.specs import load_spec

GM = "神的使者"
# what the GM writes when he does not take something a player sent
REFUSALS = ("未能接受", "没有看懂", "跟帖无效", "无法行使", "视为没有行使", "没有投票也没有委托投票",
            "天神随机决定为", "没有选择立场")


SEEDS = {5: 1, 6: 2, 7: 3}


def _run(tmp_path: Path, seed: int, players: int, db: str = "r.db") -> RehearsalResult:
    return rehearse("n_lives", seed, f"sqlite:///{tmp_path / db}", players=players)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[int, RehearsalResult]:
    """One whole game at each number of players, shared by the tests below."""
    return {n: _run(tmp_path_factory.mktemp(f"p{n}"), seed, n) for n, seed in SEEDS.items()}


def _pms(result: RehearsalResult) -> tuple[list[str], list[str]]:
    """(PMs the players sent the GM, PMs the GM sent the players) from the transcript."""
    sent, answers = [], []
    for item in result.transcript:
        head = item.split("\n", 1)[0]
        if "短消息" not in head:
            continue
        if head.endswith(f"→ {GM}:"):
            sent.append(item)
        elif f"短消息 {GM} →" in head:
            answers.append(item)
    return sent, answers


@pytest.mark.parametrize("players", [5, 6, 7])
def test_rehearsal_ends_with_a_winner(games: dict[int, RehearsalResult], players: int) -> None:
    result = games[players]
    spec = load_spec("n_lives")
    assert result.state.phase.kind == "over"
    assert result.winner in [*spec.factions, "draw"]
    assert len(result.state.players) == players


@pytest.mark.parametrize("players", [5, 6, 7])
def test_every_sim_pm_is_accepted(games: dict[int, RehearsalResult], players: int) -> None:
    result = games[players]
    sent, answers = _pms(result)
    receipts = [a for a in answers if a.split("\n")[1].startswith("已收到")]
    assert sent and len(receipts) == len(sent)
    refused = [a for a in answers if any(word in a for word in REFUSALS)]
    assert refused == []
    # nobody left the game for not voting (§8.5) and every player checked in (§5.2)
    assert all(p.death_cause in (None, "cards") for p in result.state.players)


def test_the_sims_write_as_players_would(games: dict[int, RehearsalResult]) -> None:
    """Orders, a side, attacks with declarations, protections and votes; never 平民 for the
    chooser at 7 players (§3.4.3)."""
    result = games[7]
    text = "\n".join(result.transcript)
    for written in ("签到", "杀人宣言（", "投票"):
        assert written in text
    sent, _ = _pms(result)
    assert any("丢牌顺序：" in pm for pm in sent)
    sides = [pm for pm in sent if "\n立场 " in pm]
    assert len(sides) == 1 and "平民" not in sides[0]


def test_the_same_seed_gives_the_same_game(tmp_path: Path) -> None:
    first = _run(tmp_path, 8, 6, "a.db")
    second = _run(tmp_path, 8, 6, "b.db")
    assert first.winner == second.winner
    assert first.transcript == second.transcript
