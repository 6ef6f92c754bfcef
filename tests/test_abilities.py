"""Abilities as data (issue 36): for every family with an ability table, each ability's words
parse to it, it is refused outside its window with its variant's words, each role's help lists
exactly its abilities; a variant file gives an existing ability to a new role (a guardian
holding 束魂, the 医生 of docs/examples/classic_10_doctor.toml) and plays without Python."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tianshen.core.abilities import Ability, Table, table
from tianshen.core.grammar import parse_pm
from tianshen.core.model import DeadlineIn, GameState, PmIn, PostIn
from tianshen.core.ruleset import GameSetup, Ruleset
from tianshen.replay import load_script, replay
from tianshen.rules import load_ruleset
from tianshen.rules.n_lives import cards
from tianshen.sim.montecarlo import Game
from tianshen.sim.rehearsal import default_seats, rehearse
from tianshen.specs import available_variants, load_spec
from tianshen.store import Store

ROOT = Path(__file__).resolve().parents[1]
DOCTOR = ROOT / "docs" / "examples" / "classic_10_doctor.toml"
START = datetime(2026, 1, 1, 20, 0, tzinfo=UTC)
FORM = re.compile(r"([^\s“”：；（）]+) 名字")  # a help's form: 「束魂 名字」, 「a/b 名字」


def _table(ruleset: Ruleset) -> Table | None:
    tab = getattr(ruleset, "abilities", None)
    return tab if isinstance(tab, Table) else None


VARIANTS = [v for v in available_variants() if _table(load_ruleset(v)) is not None]
# every ability a player can hold: by his role, or (n_lives) by a card of his hand
CASES = [(v, a.id) for v in VARIANTS for a in _table(load_ruleset(v)).by_id.values()  # type: ignore[union-attr]
         if a.roles or load_ruleset(v).spec.ruleset == "n_lives"]


def _night_one(variant: str) -> tuple[Ruleset, GameState]:
    ruleset = load_ruleset(variant)
    return ruleset, ruleset.setup(GameSetup(seats=default_seats(ruleset.spec.players), seed=3, start=START)).state


def _ability(ruleset: Ruleset, aid: str) -> Ability:
    tab = _table(ruleset)
    assert tab is not None
    return tab.by_id[aid]


def _reply(ruleset: Ruleset, state: GameState, sender: str, text: str, at: datetime) -> tuple[str, list[str]]:
    out = ruleset.apply(state, PmIn(id=f"pm-{text}", sender=sender, at=at, text=text))
    [reply] = [m.body for m in out.pms if m.to == sender]
    return reply, [r.reason for r in out.refusals]


def test_every_family_has_an_ability_table() -> None:
    assert {load_ruleset(v).spec.ruleset for v in VARIANTS} == {
        "classic", "game_ten", "n_lives", "hex_survival", "butterfly_elder"}


# every family's abilities, those whose intake is still the family's (hex_survival, n_lives) too
EVERY = [(v, aid) for v in available_variants() for aid in table(load_spec(v)).by_id]


@pytest.mark.parametrize(("variant", "aid"), EVERY)
def test_every_word_of_an_ability_parses_to_it(variant: str, aid: str) -> None:
    ruleset = load_ruleset(variant)
    ability = table(ruleset.spec).by_id[aid]
    for word in ability.words:
        parsed = parse_pm(f"{word} 青竹", ruleset.pm_verbs, ruleset.pm_declaring)
        assert [(c.verb, c.arg) for c in parsed.commands] == [(ability.command, "青竹")], word


@pytest.mark.parametrize(("variant", "aid"), CASES)
def test_an_ability_is_refused_outside_its_window_with_its_words(variant: str, aid: str) -> None:
    ruleset, state = _night_one(variant)
    ability = _ability(ruleset, aid)
    cards = not ability.roles  # n_lives: any player, the window is checked before his hand
    holder = next((p for p in state.players if cards or p.role in ability.roles), None)
    if holder is None:
        pytest.skip(f"no {aid} holder dealt in {variant}")
    other = next(p.name for p in state.players if p.name != holder.name)
    assert state.phase.ends_at is not None and state.phase.started_at is not None
    outside = ability.get("outside")  # the ability's own words for "not now", else the window's
    if ability.lock is not None:  # game_ten, n_lives, the 花蝴蝶's hug: nothing new from the lock on
        at = state.phase.ends_at - timedelta(minutes=ability.lock / 2)
        words = ruleset.spec.text(ability.get("locked", "night_locked"), minutes=f"{ability.lock:g}")
    elif ability.window == "power":  # the power round ends at its deadline
        at, words = state.phase.ends_at, ruleset.spec.text(outside or "not_power_time")
    elif ability.window == "night":
        at, words = state.phase.started_at - timedelta(minutes=1), ruleset.spec.text(outside or "not_night")  # day
        late, late_words = state.phase.ends_at, ruleset.spec.text("night_over")
        assert _reply(ruleset, state, holder.name, f"{ability.words[0]} {other}", late)[1] == [late_words]
    else:
        assert ability.window == "day", f"{variant} {aid}: an 'any' window needs a lock to be refused"
        at, words = state.phase.started_at + timedelta(minutes=1), ruleset.spec.text(outside or "not_day")  # night 1
    _, refusals = _reply(ruleset, state, holder.name, f"{ability.words[0]} {other}", at)
    assert refusals == [words]


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_roles_help_lists_exactly_its_abilities(variant: str) -> None:
    """Every ability of the night is in a role's help as its form (「束魂 名字」, 「a/b 名字」)
    exactly when the role holds it (hex_survival's day actions are in its day help)."""
    ruleset, state = _night_one(variant)
    tab = _table(ruleset)
    assert tab is not None
    for p in state.players:
        held = {a.id for a in tab.held(p.role) if a.window != "day"}
        if ruleset.spec.ruleset == "n_lives":  # his cards hold his privileges: the help shows his hand
            assert cards.describe_hand(ruleset.spec, state, cards.hand(p)) in ruleset.pm_help(state, p)
            continue
        if not held:
            continue  # a role without powers gets the family's general help
        help_text = ruleset.pm_help(state, p)
        forms = {w for found in FORM.findall(help_text) for w in found.split("/")}
        assert {a.id for a in tab.by_id.values() if a.name in forms} == held, (p.role, help_text)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_role_holding_no_ability_is_told_none(variant: str) -> None:
    """A role without abilities (game_ten's 待选职业者, who must choose first) is not told to use
    one (the help used to say 祈祷)."""
    ruleset, state = _night_one(variant)
    tab = _table(ruleset)
    assert tab is not None
    bare = [r for r in ruleset.spec.roles if not tab.held(r)]
    for role in bare:
        p = state.players[0]
        p.role = role
        help_text = ruleset.pm_help(state, p)
        forms = {w for found in FORM.findall(help_text) for w in found.split("/")}
        assert not {a.name for a in tab.by_id.values()} & forms, (role, help_text)
    if variant == "game_ten":
        assert bare == ["unchosen"] and "转职" in ruleset.pm_help(state, state.players[0])


def _guardian_variant(tmp_path: Path) -> Path:
    path = tmp_path / "classic_10_guardian.toml"
    path.write_text('include = ["classic_10"]\ntitle = "经典杀人游戏（10人，守护者）"\n'
                    '[roles.guardian]\nname = "守护者"\nfaction = "civilians"\ncount = 1\nabilities = ["soulbind"]\n'
                    'description = "每夜寄“束魂 名字”。"\n[roles.commoner]\ncount = 3\n', encoding="utf-8")
    return path


def test_a_new_role_holding_an_existing_ability_is_a_variant_file(tmp_path: Path) -> None:
    ruleset, state = _night_one(str(_guardian_variant(tmp_path)))
    guardian = next(p for p in state.players if p.role == "guardian")
    other = next(p.name for p in state.players if p.name != guardian.name)
    reply, refusals = _reply(ruleset, state, guardian.name, f"束魂 {other}", START + timedelta(minutes=30))
    assert refusals == [] and f"✔ 束魂 {other}" in reply
    assert ruleset.pm_help(state, guardian).startswith("指令格式：束魂 名字")


@pytest.mark.parametrize("variant", ["guardian", "doctor"])
def test_random_play_of_a_variant_with_a_new_role_ends(tmp_path: Path, variant: str) -> None:
    path = _guardian_variant(tmp_path) if variant == "guardian" else DOCTOR
    for seed in (1, 2):
        state = Game(load_ruleset(str(path)), seed, 10).play()
        assert state.phase.kind == "over", seed


# A new role (n_lives: a new card) holding abilities its family has, for every family: the
# variant file, the holder, and what he writes on night 1 ({t}: a player he may target).
NEW_ROLES = {
    "classic_10": ('[roles.guardian]\nname = "守护者"\nfaction = "civilians"\ncount = 1\nabilities = ["soulbind"]\n'
                   '[roles.commoner]\ncount = 3\n', "guardian", "束魂 {t}"),
    "game_ten": ('players = 15\n[roles.watcher]\nname = "守夜人"\nfaction = "civilians"\ncount = 1\n'
                 'abilities = ["curse", "bless"]\n', "watcher", "诅咒 {t}"),  # 7 commoners: 001 §2.10's queues
    "hex_survival_12": ('[roles.scout]\nname = "红方斥候"\nfaction = "red"\ncount = 1\nabilities = ["attack", "dig"]\n'
                        'description = "你属于红方阵营，只能攻击和挖掘。"\n[roles.red]\ncount = 5\n', "scout", "攻击 {t}"),
    "butterfly_elder": ('[roles.deputy]\nname = "警探"\nfaction = "good"\ncount = 1\nabilities = ["check"]\n'
                        '[roles.villager]\ncount = 7\n', "deputy", "验 {t}"),
    "n_lives": ('[cards.guard]\nname = "束魂/防弹衣"\ncount = 1\nabilities = ["bind", "vest"]\n'
                '[cards.diviner]\ncount = 1\n', "guard", "防弹衣"),
}


def _new_role_variant(tmp_path: Path, base: str) -> Path:
    path = tmp_path / f"{base}_new_role.toml"
    path.write_text(f'include = ["{base}"]\ntitle = "新身份"\n' + NEW_ROLES[base][0], encoding="utf-8")
    return path


def _holds(ruleset: Ruleset, state: GameState, p, new: str) -> bool:  # type: ignore[no-untyped-def]
    if ruleset.spec.ruleset != "n_lives":
        return p.role == new
    return any(cards.card_type(state, c) == new for c in cards.hand(p))


@pytest.mark.parametrize("base", sorted(NEW_ROLES))
def test_every_family_takes_a_new_role_from_its_abilities(tmp_path: Path, base: str) -> None:
    """The variant loads, the new holder's PM is taken (its help names his abilities), random
    play ends."""
    ruleset, state = _night_one(str(_new_role_variant(tmp_path, base)))
    _, new, form = NEW_ROLES[base]
    holder = next(p for p in state.players if _holds(ruleset, state, p, new))
    targets = holder.extra.get("range") or [q.name for q in state.players if q.name != holder.name]
    reply, refusals = _reply(ruleset, state, holder.name, form.format(t=targets[-1]), START + timedelta(minutes=30))
    assert refusals == [], reply
    if ruleset.spec.ruleset != "n_lives":  # n_lives' help shows the hand
        forms = {w for found in FORM.findall(ruleset.pm_help(state, holder)) for w in found.split("/")}
        names = {a.name for a in ruleset.abilities.held(new) if a.window != "day"}
        assert names <= forms, (names, forms)
    for seed in (1, 2):
        assert Game(ruleset, seed, ruleset.spec.players).play().phase.kind == "over", seed


# ---- the 医生 of docs/examples/classic_10_doctor.toml ------------------------------------------

DECL = ("夜色像墨一样泼在小镇上，辛独自走在回家的石板路上，脚步声在空巷里回荡。路灯一盏接一盏地熄灭，风里带着潮湿的"
        "铁锈味。就在拐角处，一只冰冷的手捂住了他的嘴，另一只手里的刀已经悄无声息地落下。第二天清晨，人们只在井边找到一顶帽子。")


def _doctor_script(tmp_path: Path) -> Path:
    path = tmp_path / "doctor_save.toml"
    path.write_text(f'''ruleset = "{DOCTOR}"
seed = 7

[players]
"甲" = "杀手"
"乙" = "杀手"
"丙" = "占卜"
"丁" = "束魂"
"戊" = "诅咒"
"己" = "庇佑"
"庚" = "医生"
"辛" = "庶民"
"壬" = "庶民"
"癸" = "庶民"

[[phase]]
phase = "night 1"
pm = [
  {{ from = "甲", text = "杀 辛\\n{DECL}" }},
  {{ from = "庚", text = "保护：辛" }},
  {{ from = "庚", text = "占卜 甲" }},
  {{ from = "丁", text = "束魂 丙" }},
]
''', encoding="utf-8")
    return path


def test_the_doctor_saves_the_killers_target_silently(tmp_path: Path) -> None:
    result = replay(load_script(_doctor_script(tmp_path)))
    [night] = [p for p in result["phases"] if p["phase"] == "night 1"]
    dawn = night["public"][-1]
    assert "昨夜无人死亡" in dawn and "辛" not in dawn  # a silent save: no 束魂 line
    assert night["state"]["players"]["辛"]["alive"] is True
    assert night["state"]["players"]["辛"]["can_vote"] is True
    to_doctor = [m["text"] for m in night["private"] if m["to"] == "庚"]
    assert any("✔ 保护 辛" in t for t in to_doctor)
    refused = [r["reason"] for r in night["refusals"] if r["from"] == "庚"]
    assert refused == ["你的身份不能“占卜”。你的特权是“保护”。"]
    assert any("指令格式：保护 名字" in t for t in to_doctor)  # his help names his ability


def test_a_rehearsal_of_the_doctor_variant_ends_and_the_doctor_acts(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'd.db'}"
    result = rehearse(str(DOCTOR), 7, db_url)
    store = Store(db_url)
    events = store.events(result.game_id)
    store.close()
    assert result.winner
    assert any(e.kind == "pm" and "保护" in e.payload_json for e in events)


def test_a_game_ten_doctor_from_the_bind_protection_saves_the_kill(tmp_path: Path) -> None:
    """The protection layer serves game_ten too: a silent guard built on 束魂's protection."""
    path = tmp_path / "game_ten_doctor.toml"
    path.write_text('include = ["game_ten"]\nplayers = 15\n[abilities.protect]\nname = "保护"\nwords = ["保护"]\n'
                    'protects = "bind"\nannounce = false\nwindow = "any"\nlock = 10\n'
                    '[roles.doctor]\nname = "医生"\nfaction = "civilians"\ncount = 1\nabilities = ["protect"]\n', encoding="utf-8")
    ruleset, state = _night_one(str(path))
    killer = next(p for p in state.players if p.role == "killer")
    doctor = next(p for p in state.players if p.role == "doctor")
    victim = next(p for p in state.players if p.role == "commoner")
    at = START + timedelta(minutes=30)
    for i, p in enumerate(state.players):  # everyone signs in (001 §3.2)
        state = ruleset.apply(state, PostIn(id=f"in{i}", thread="main", author=p.name, at=at, text="签到")).state
    for sender, text in ((killer.name, f"杀 {victim.name}\n{DECL}"), (doctor.name, f"保护 {victim.name}")):
        out = ruleset.apply(state, PmIn(id=text[:8], sender=sender, at=at, text=text))
        assert out.refusals == [], out.refusals
        state = out.state
    posts: list[str] = []
    while state.phase.kind == "night":
        deadline = ruleset.next_deadline(state)
        assert deadline is not None
        out = ruleset.apply(state, DeadlineIn(id=deadline.kind, at=deadline.at, kind=deadline.kind))
        state, posts = out.state, posts + [p.body for p in out.posts]
    assert state.player(victim.name).alive
    assert not any(victim.name in body for body in posts), posts  # silent: no 束魂 line


@pytest.mark.parametrize(("toml", "line"), [
    ('[roles.guard]\nname = "守卫"\nfaction = "civilians"\ncount = 1\nabilities = ["heal"]\n',
     "role guard holds ability 'heal', which [abilities] does not define"),
    ('[abilities.kill]\nwindow = "dusk"\n', "ability kill: window 'dusk' is not one of night, power, day, any"),
    ('[verbs]\nshared = ["vote", "shout"]\n',
     "[verbs] shared names shout, not one of vote, delegate, declaration, story, accuse, cancel, done, count"),
])
def test_a_wrong_ability_table_is_one_line(tmp_path: Path, toml: str, line: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('include = ["classic_10"]\n' + toml, encoding="utf-8")
    with pytest.raises(ValueError) as caught:
        load_ruleset(str(path))
    assert str(caught.value) == f"ruleset bad: {line}"


def test_an_ability_with_uses_is_refused_once_they_are_spent() -> None:
    """001 §2.7: 招魂 twice a game; its uses are the data key its TOML names (`uses`)."""
    ruleset, state = _night_one("game_ten")
    summoner = next(p for p in state.players if p.role == "summoner")
    dead = next(p for p in state.players if p.role == "commoner")
    dead.alive = False
    at = START + timedelta(minutes=30)
    assert _reply(ruleset, state, summoner.name, f"招魂 {dead.name}", at)[1] == []
    state.data["summon_uses"] = 0
    assert _reply(ruleset, state, summoner.name, f"招魂 {dead.name}", at)[1] == ["你的两次招魂权力已经用完。"]
