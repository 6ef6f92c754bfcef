"""Issue 23 item 11: what players read is Chinese, with no English words and no clause
citations (`天神决定将night 1延长`, `一人一票，投出后不能修改（001 §5.1）`).  The GM's own
notes (`note_*` texts, `Outcome.notes`) may cite clauses, but a 002-family (classic) game's
notes never cite 001: its day vote is 001's by DECISIONS §3.1.7.

Player text is every ruleset text but the `note_*` ones, every role description, and what a
game sends: `Outcome.posts`, `.pms` and `.refusals` (core.model); `.notes` and `.log` are
the GM's."""

from __future__ import annotations

import ast
import re
import string
from datetime import timedelta
from pathlib import Path

import pytest

from tianshen.core.model import GmIn, Outcome
from tianshen.core.spec import RulesetSpec
from tianshen.rules import load_ruleset
from tianshen.sim.montecarlo import Game
from tianshen.specs import available_variants, load_spec

VARIANTS = available_variants()
# ASCII a player may read: the commands of the forum's own (`@名字`), Roman numerals of
# nothing…  — none so far; a name is filled in as Chinese, so an English name never matches.
ALLOWED: set[str] = set()  # times are shown as 12月5日 20:00（北京时间） (core.clock.show)
WORD = re.compile(r"[A-Za-z][A-Za-z_-]*[A-Za-z]")
CITATION = re.compile(r"§|DECISIONS|\b00[0-4]\b|补充\s*[一二三四五六七八九十]")
FILLER = "甲"


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return FILLER


def _render(template: str) -> str:
    return string.Formatter().vformat(template, (), _Blank())


HASH = re.compile(r"[0-9a-f]{16,}")  # the seed commitment and the salt (core.rng.seed_digest)
CHECK = re.compile(r'sha256\("[^"]*"\)')  # how a player recomputes the commitment: a formula to copy


def _problems(text: str) -> list[str]:
    text = HASH.sub("", CHECK.sub("", text))
    words = [w for w in WORD.findall(text) if w not in ALLOWED]
    return words + CITATION.findall(text)


def _player_texts(spec: RulesetSpec) -> dict[str, str]:
    texts = {k: _render(t) for k, t in spec.texts.items() if not k.startswith("note_")}
    texts.update({f"role {r}": spec.role_description(r) for r in spec.roles})
    texts.update({f"role name {r}": info.name for r, info in spec.roles.items()})
    texts.update({f"faction {f}": name for f, name in spec.factions.items()})
    return texts


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_player_template_is_chinese_without_citations(variant: str) -> None:
    spec = load_spec(variant)
    bad = {k: _problems(t) for k, t in _player_texts(spec).items()}
    assert not {k: p for k, p in bad.items() if p}


@pytest.mark.parametrize("variant", [v for v in VARIANTS if load_spec(v).ruleset == "classic"])
def test_a_classic_gm_note_does_not_cite_001(variant: str) -> None:
    spec = load_spec(variant)
    notes = {k: _render(t) for k, t in spec.texts.items() if k.startswith("note_")}
    assert not {k: t for k, t in notes.items() if re.search(r"\b001\b", t)}


def _sent(outcome: Outcome) -> list[str]:
    return [p.body for p in outcome.posts] + [p.title or "" for p in outcome.posts] + \
        [m.body for m in outcome.pms] + [m.subject for m in outcome.pms] + [r.reason for r in outcome.refusals]


def _played(variant: str, seed: int) -> Game:
    ruleset = load_ruleset(variant)
    players = ruleset.spec.players
    game = Game(ruleset, seed, players)
    start = game.state.copy()
    # the GM's overrides that post: an extension of night 1, a pause and its end
    at = game.now + timedelta(hours=1)
    for i, (command, args) in enumerate([("extend", {"hours": 2}), ("pause", {}), ("resume", {})]):
        game.outcomes.append(ruleset.apply(start, GmIn(id=f"gm-{i}", at=at + timedelta(minutes=i), command=command,
                                                       args=args, reason="论坛维护")))
        start = game.outcomes[-1].state
    game.play()
    return game


@pytest.mark.parametrize("variant", VARIANTS)
def test_what_a_game_sends_players_is_chinese_without_citations(variant: str) -> None:
    game = _played(variant, 3)
    bad = {}
    for outcome in game.outcomes:
        for text in _sent(outcome):
            if found := _problems(text):
                bad.setdefault(" ".join(text.split())[:200], found)
    assert not bad


@pytest.mark.parametrize("variant", [v for v in VARIANTS if load_spec(v).ruleset == "classic"])
def test_a_classic_games_notes_do_not_cite_001(variant: str) -> None:
    game = _played(variant, 3)
    notes = [n for o in game.outcomes for n in o.notes if re.search(r"\b001\b", n)]
    assert not notes


def test_an_extension_names_the_phase_in_chinese() -> None:
    ruleset = load_ruleset("classic_10")
    game = Game(ruleset, 1, 10)
    out = ruleset.apply(game.state, GmIn(id="gm", at=game.now + timedelta(hours=1), command="extend",
                                         args={"hours": 2}, reason="论坛维护"))
    assert "天神决定将第1夜延长2小时" in out.posts[0].body



# ---- issue 31 item 8: the role PM and the end post say each thing once -----------------------


def _classic_8(own_accounts: bool):  # -> (ruleset, outcome of the deal)
    from datetime import UTC, datetime

    from tianshen.core.ruleset import GameSetup, Seat

    ruleset = load_ruleset("classic_8")
    names = [f"player{i}" for i in range(1, 9)]
    seats = [Seat(name=n) if own_accounts else Seat(name=n, forum_name=f"账号{i}") for i, n in enumerate(names, 1)]
    setup = GameSetup(seats=seats, seed=3, start=datetime(2026, 12, 5, 12, tzinfo=UTC), salt="ab" * 16)
    return ruleset, ruleset.setup(setup)


def test_the_8_player_killers_role_pm_names_his_nights_once() -> None:
    ruleset, out = _classic_8(own_accounts=False)
    killers = {p.forum_name for p in out.state.players if p.role == "killer"}
    pms = [pm.body for pm in out.pms if pm.to in killers]
    assert len(pms) == 2
    assert sorted("你在单数夜杀人" in b for b in pms) == [False, True]
    assert sorted("你在双数夜杀人" in b for b in pms) == [False, True]
    for body in pms:
        assert "第单数" not in body and "第双数" not in body
        assert body.count("互不相识") == 1 and body.count("轮流杀人") == 1
        assert "游戏专用马甲是“player" in body  # a 马甲 that is not his account is named


def test_a_seat_whose_vest_is_his_own_account_is_not_told_it_nor_listed_twice() -> None:
    from tianshen.core.model import GmIn

    ruleset, out = _classic_8(own_accounts=True)
    assert out.pms and not any("游戏专用马甲" in pm.body for pm in out.pms)
    assert all(pm.body.startswith(f"{pm.to}，你好！\n你的身份：") for pm in out.pms if pm.to.startswith("player"))
    end = ruleset.apply(out.state, GmIn(id="gm", at=out.state.phase.started_at, command="end-game", args={},
                                        reason="测试"))
    body = "\n".join(p.body for p in end.posts)
    assert "player2：" in body and "player2（player2）" not in body
    _, other = _classic_8(own_accounts=False)
    end = ruleset.apply(other.state, GmIn(id="gm", at=other.state.phase.started_at, command="end-game", args={},
                                          reason="测试"))
    assert "player2（账号2）：" in "\n".join(p.body for p in end.posts)


# ---- what the code writes itself ---------------------------------------------------------

SRC = Path(__file__).resolve().parents[1] / "src" / "tianshen"
# calls whose text a player reads: a refusal (sent back as a PM), a PM, a post, the reason of
# a GM command the driver issues itself (it goes into the public post), `reason = …`
PLAYER_CALLS = ("Refused", ".pm", ".post", ".refuse", ".gm")
CJK = re.compile(r"[\u4e00-\u9fff]")


def _player_literals() -> list[tuple[str, int, str]]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if {"web", "forum", "sim"} & set(path.relative_to(SRC).parts):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = ast.unparse(node.func)
                if func.endswith("GmRefused") or not func.endswith(PLAYER_CALLS):
                    continue
                parts = node.args + [k.value for k in node.keywords]
            elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "reason" for t in node.targets):
                parts = [node.value]
            else:
                continue
            for part in parts:
                for sub in ast.walk(part):
                    if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and CJK.search(sub.value):
                        found.append((str(path.relative_to(SRC)), sub.lineno, sub.value))
    return found


def test_the_codes_own_player_text_is_chinese_without_citations() -> None:
    literals = _player_literals()
    assert len(literals) > 50  # the scan reaches the refusals
    bad = [(f, line, text) for f, line, text in literals if _problems(text)]
    assert not bad
