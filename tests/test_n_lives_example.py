"""The worked example of seed 000 ("写了个例子说明"), replayed from tests/scripts/n_lives_example.toml.

Every loss, tally, execution, pardon and 圣人 revenge the narrator tells is checked against
what the bot announced and against the hands it holds (DECISIONS §1: A15 escrow, A16 order of
the saint's loss, A20 aimed snipes counted from the end, A29 names at day end, types at dawn)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tianshen.replay import load_script, replay

SCRIPT = Path(__file__).parent / "scripts" / "n_lives_example.toml"


@pytest.fixture(scope="module")
def phases() -> dict[str, dict]:
    result = replay(load_script(SCRIPT))
    return {p["phase"]: p for p in result["phases"]}


def public(phases: dict[str, dict], label: str) -> str:
    return "\n".join(phases[label]["public"])


def cards_of(phases: dict[str, dict], label: str, name: str) -> list[str]:
    return phases[label]["state"]["players"][name]["cards"]


def test_night_1_aimed_snipes_and_a_double_attack(phases):
    """第一天: mecyl lost his 倒数第2 card, a 特权牌; the narrator lost his 倒数第2, the 庶民;
    苹果 was attacked twice and lost a 特权牌 and a 庶民牌 (§3.1.3b, §5.8)."""
    dawn = public(phases, "night 1")
    assert "mecyl昨夜丢了1张特权牌。" in dawn
    assert "我昨夜丢了1张庶民牌。" in dawn
    assert "苹果昨夜丢了1张特权牌和1张庶民牌。" in dawn
    assert cards_of(phases, "night 1", "mecyl") == ["庶民", "必杀/特赦", "防弹衣/狼毒"]
    assert cards_of(phases, "night 1", "我") == ["防弹衣/狼毒", "诅咒/庇佑", "狙击手/圣人"]
    narrator = phases["night 1"]["state"]["players"]["我"]
    assert narrator["faction"] == "werewolves" and narrator["mode"] == "solo"
    assert narrator["ap"] == 0  # 2 + 1 (庶民) spent on the aimed snipe (§3.3)


def test_day_1_bisha_before_the_count_and_escrow(phases):
    """The narrator is hit by 必杀 at day end: his vote counts 2, not 3 (§3.1.8a, §8.2);
    romanchen and mecyl are the top two; their card types wait for the night (§8.3, A29)."""
    dusk = public(phases, "day 1")
    assert "我被必杀攻击，丢了一张特权牌。" in dusk
    assert "| mecyl | 10 | 我（2）、romanchen（4）、楼兰（4） |" in dusk
    assert "| romanchen | 9 |" in dusk
    assert "mecyl被处决，丢了一张牌；因为今夜还可能被特赦" in dusk
    assert "romanchen被处决，丢了一张牌；因为今夜还可能被特赦" in dusk
    assert cards_of(phases, "day 1", "我") == ["诅咒/庇佑", "狙击手/圣人"]
    assert phases["day 1"]["state"]["players"]["mecyl"]["escrow"] == "庶民"


def test_night_2_pardon_and_nobody_hit(phases):
    """天神宣布mecyl昨夜被特赦…romanchen丢了一张庶民牌。这一夜没有任何人被杀！"""
    dawn = public(phases, "night 2")
    assert "mecyl昨夜被特赦" in dawn
    assert "romanchen昨天被处决丢掉的是一张庶民牌。" in dawn
    assert "昨夜没有人丢牌。" in dawn
    assert cards_of(phases, "night 2", "mecyl") == ["庶民", "必杀/特赦", "防弹衣/狼毒"]
    assert phases["night 2"]["state"]["players"]["我"]["ap"] == 2  # no 庶民 left: only 2


def test_day_2_devout_blessing_and_the_saint(phases):
    """虔诚庇佑 halves the narrator's votes (4 → 2) and he escapes; 苹果 and 警花 are executed;
    警花 was a 圣人: her card type now, and romanchen, 楼兰 and 苹果 lose a card each (特权,
    庶民, 特权); 苹果's executed card waits (A16: escrow first, then the saint's loss)."""
    dusk = public(phases, "day 2")
    assert "| 我 | 4→2 | 警花（4） |" in dusk
    assert "警花被处决，丢了一张特权牌。" in dusk
    assert "苹果被处决，丢了一张牌；因为今夜还可能被特赦" in dusk
    assert "苹果丢了一张特权牌，romanchen丢了一张特权牌，楼兰丢了一张庶民牌" in dusk
    assert "我被处决" not in dusk
    apple = phases["day 2"]["state"]["players"]["苹果"]
    assert apple["cards"] == [] and apple["escrow"] == "占卜/束魂" and apple["alive"]  # "实际上就没有牌了"
    assert "1/3" in dusk  # 10 of 24 cards gone: the first reorder window (§6.3)


def test_night_3_pardon_and_two_attacks(phases):
    """苹果 gets his card back; the narrator and romanchen each lose a card and hold one."""
    dawn = public(phases, "night 3")
    assert "苹果昨夜被特赦" in dawn
    assert "我昨夜丢了1张特权牌。" in dawn
    assert "romanchen昨夜丢了1张庶民牌。" in dawn
    assert cards_of(phases, "night 3", "我") == ["狙击手/圣人"]
    assert cards_of(phases, "night 3", "romanchen") == ["狼人"]
    assert cards_of(phases, "night 3", "苹果") == ["占卜/束魂"]


def test_day_3_bisha_kills_and_a_pardoned_player_loses_at_once(phases):
    """苹果 loses his last card to 必杀 and is out; 楼兰 and mecyl are the top two; mecyl was
    pardoned before, so his 庶民 is lost now; 楼兰's type waits (§8.3, A17)."""
    dusk = public(phases, "day 3")
    assert "苹果被必杀攻击，丢了一张特权牌。" in dusk
    assert "苹果的牌已经全部丢光，出局。" in dusk
    assert "楼兰被处决，丢了一张牌；因为今夜还可能被特赦" in dusk
    assert "mecyl被处决，丢了一张庶民牌。" in dusk
    assert "| 楼兰 | 6 |" in dusk and "| mecyl | 4 |" in dusk
    assert not phases["day 3"]["state"]["players"]["苹果"]["alive"]


def test_night_4_the_narrator_goes_out_with_his_last_shot(phases):
    """楼兰丢失了一张特权牌。警花丢失了一张庶民牌。我丢失了一张特权牌…出局 — and his own aimed
    snipe of that night still hits (DECISIONS §0.2, A45)."""
    dawn = public(phases, "night 4")
    assert "楼兰昨天被处决丢掉的是一张特权牌。" in dawn
    assert "警花昨夜丢了1张庶民牌。" in dawn
    assert "我昨夜丢了1张特权牌。" in dawn
    assert "我的牌已经全部丢光，出局。" in dawn
    assert cards_of(phases, "night 4", "警花") == ["庶民", "狙击手/圣人"]
    assert "2/3" in dawn  # 17 of 24 cards gone: the second window


def test_no_identity_or_card_name_is_ever_posted(phases):
    """§5.8: only the number and type of lost cards, never which card; 所有死者的游戏身份都不公布."""
    secret = ["杀手阵营", "狼人阵营", "平民阵营", "自选立场者", "狙击手/圣人", "必杀/特赦", "占卜/束魂",
              "诅咒/庇佑", "防弹衣/狼毒", "先知/巫医", "禁锢/反狙击"]
    for label, phase in phases.items():
        for body in phase["public"]:
            text = "\n".join(line for line in body.split("\n") if not line.startswith(">"))  # declarations
            assert not [w for w in secret if w in text], (label, text)
