"""One protection layer (issue 36, core.protection): every family's guarding abilities register
with it from their table entry (`protects`), and "protected" is asked there once — classic and
game_ten (bind, prayer), n_lives (bind, heal, vest, bane, antisnipe, and each attack's
`blocked_by`), butterfly_elder (the doctor's save, with 六's mirror on the 花蝴蝶's hug)."""

from __future__ import annotations

from pathlib import Path

import pytest

import n_lives_helpers
from n_lives_helpers import HANDS_6, Game, decl
from tianshen.core.protection import EVERYONE, Protection
from tianshen.rules import load_ruleset
from tianshen.rules.butterfly_elder import powers
from tianshen.rules.n_lives import night
from tianshen.specs import load_spec


def test_a_guard_on_everyone_guards_each_player() -> None:
    prot = Protection()
    prot.add("antisnipe", "戊", EVERYONE, "antisnipe")
    prot.add("vest", "丙", "丙", "vest")
    assert prot.stops("丁", ["antisnipe"]) and prot.stops("丙", ("vest",))
    assert not prot.stops("丁", ["vest", "bind"])


def test_n_lives_registers_every_guard_of_its_table() -> None:
    spec = load_spec("n_lives")
    live = [{"actor": "甲", "ability": "bind", "target": "丙"}, {"actor": "乙", "ability": "heal", "target": "丁"},
            {"actor": "丙", "ability": "vest", "target": None}, {"actor": "丁", "ability": "bane", "target": None},
            {"actor": "戊", "ability": "antisnipe", "target": None},
            {"actor": "甲", "ability": "k_attack", "target": "丁"}]
    prot = night.guards(spec, live)
    assert sorted((g.kind, g.target) for g in prot.guards) == [
        ("antisnipe", EVERYONE), ("bane", "丁"), ("bind", "丙"), ("heal", "丁"), ("vest", "丙")]


def test_what_stops_an_attack_is_the_tables_blocked_by(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A variant file saying 防弹衣 also stops 一击必杀 is obeyed without Python (on the old
    night, where the blocks were written in code, the card is lost)."""
    path = tmp_path / "n_lives_hard_vest.toml"
    path.write_text('include = ["n_lives"]\ntitle = "猫有n条命（硬防弹衣）"\n'
                    '[abilities.k_ohk]\nblocked_by = ["vest"]\n', encoding="utf-8")
    monkeypatch.setattr(n_lives_helpers, "load_ruleset", lambda _: load_ruleset(str(path)))
    g = Game()
    g.pm("丁", "防弹衣")
    g.pm("甲", f"一击必杀 丁\n{decl()}")
    g.dawn()
    assert g.hand("丁") == HANDS_6["丁"]


def test_butterflys_doctor_registers_its_save_and_the_mirror() -> None:
    spec = load_spec("butterfly_elder")
    acts = {"save": {"by": "医", "verb": "save", "target": "蝶"}}
    prot = powers.guards(spec, acts, set(), "抱", "蝶")
    assert [(g.kind, g.target) for g in prot.guards] == [("save", "蝶"), ("save", "抱")]
    assert powers.guards(spec, acts, {"save"}, "抱", "蝶").guards == []  # E15: a hugged doctor guards nobody
