"""Seed 004 四 and 补充说明 一 6 (DECISIONS 5.1.5): open votes, changes by new posts,
abstention, the forum-time deadline, the published lot, 归零 with ties and zeros."""

from __future__ import annotations

from butterfly_helpers import BUTTERFLY, ELDER, VILLAGERS, Game, main_posts


def voted(g: Game) -> dict[str, str]:
    return {v: b["target"] for v, b in g.state.data["ballots"].items()}


def test_most_votes_goes_out_with_identity() -> None:
    """四 得票最高者由法官宣布死亡; 五 identity: killers as 杀手."""
    g = Game()
    g.powers()
    out = g.day({"壬": "乙", "癸": "乙", "子": "壬"})
    text = main_posts(out)
    assert not g.alive("乙")
    assert "乙：2票（壬、癸）" in text and "**乙**得票最高，出局，身份：杀手。" in text


def test_changes_by_new_posts_latest_counts() -> None:
    """四 允许改票，但必须重新发帖: each voter's latest post counts."""
    g = Game()
    g.powers()
    g.post("壬", "投票 乙", hours=1)
    g.post("癸", "投票 乙", hours=1)
    g.post("壬", "投票 子", hours=2)
    g.post("癸", "丑", hours=3)
    g.post("子", "投票 丑", hours=3)
    assert voted(g) == {"壬": "子", "癸": "丑", "子": "丑"}
    g.day()
    assert not g.alive("丑") and g.alive("乙")


def test_edited_post_does_not_change_the_vote() -> None:
    """补充 一 6 (2) 不得在原帖中进行修改: an edited post counts as first written; when the
    original is unknown it does not count at all."""
    g = Game()
    g.powers()
    out = g.post("壬", "投票 子", edited=True, original="投票 乙")
    assert voted(g)["壬"] == "乙"
    assert any("编辑" in m.body for m in out.pms if m.to == "壬")
    out = g.post("癸", "投票 子", edited=True, original=None)
    assert "癸" not in voted(g)
    assert out.refusals and out.notes


def test_abstention_is_a_vote_for_nobody() -> None:
    """补充 一 6 (3) 玩家可以投弃权票，弃权票也视为一次投票或改票."""
    g = Game()
    g.powers()
    g.post("壬", "投票 乙", hours=1)
    g.post("壬", "弃权", hours=2)
    assert voted(g)["壬"] == ""
    out = g.day({"癸": "弃权"})
    assert "弃权：壬、癸" in main_posts(out)
    assert "本轮无人出局" in main_posts(out)
    assert g.alive("乙")


def test_everyone_abstains_nobody_goes_out() -> None:
    """E11."""
    g = Game()
    g.powers()
    out = g.day({n: "弃权" for n in g.living()})
    assert len(g.living()) == 16 and "平安夜" in main_posts(out)


def test_deadline_by_forum_time() -> None:
    """补充 一 6 (4): 20:00 截止 → 19:59 valid, 20:00 not."""
    g = Game()
    g.powers()
    end = g.state.phase.ends_at
    out = g.post("壬", "投票 乙", at=end.replace(minute=59, hour=end.hour - 1))
    assert not out.refusals
    out = g.post("壬", "投票 癸", at=end)
    assert out.refusals and "截止" in out.refusals[0].reason
    assert voted(g)["壬"] == "乙"


def test_bad_votes_are_refused_with_reason() -> None:
    """Dead voters, votes for the dead, unknown names and chat in the vote thread
    (补充 二 5 玩家发言只能为正式投票) are refused; nothing changes."""
    g = Game()
    g.powers({"甲": "杀 壬"})
    assert g.post("壬", "投票 乙").refusals
    assert g.post("癸", "投票 壬").refusals
    assert g.post("癸", "投票 无名氏").refusals
    out = g.post("癸", "大家好，我觉得乙很可疑")
    assert out.refusals and any("非投票" in n for n in out.notes)
    assert voted(g) == {}


def test_tie_broken_by_a_published_seeded_lot() -> None:
    """四 平票…通过抽签确定 (E10: seeded, the draw published)."""
    results = set()
    for seed in (1, 2, 3, 4, 5, 6):
        g = Game(seed=seed)
        g.powers()
        out = g.day({"壬": "乙", "癸": "乙", "子": "丑", "丑": "子", "寅": "子"})
        text = main_posts(out)
        assert "乙、子平票（各2票），天神抽签" in text
        gone = [n for n in ("乙", "子") if not g.alive(n)]
        assert len(gone) == 1 and f"结果为{1 if gone[0] == '乙' else 2}号：**{gone[0]}**" in text
        results.add(gone[0])
        again = Game(seed=seed)
        again.powers()
        again.day({"壬": "乙", "癸": "乙", "子": "丑", "丑": "子", "寅": "子"})
        assert [n for n in ("乙", "子") if not again.alive(n)] == gone  # the same seed, the same lot
    assert results == {"乙", "子"}


def test_zero_on_the_top_sends_the_runner_up_out() -> None:
    """一 技能二: the zeroed top scorer's votes become 0, the runner-up goes out; announced."""
    g = Game()
    g.powers({ELDER: "归零 乙"})
    out = g.day({"壬": "乙", "癸": "乙", "子": "乙", "丑": "丙", "寅": "丙"})
    text = main_posts(out)
    assert g.alive("乙") and not g.alive("丙")
    assert "森林老人本轮对**乙**行使了归零" in text


def test_zero_with_runner_up_zero_is_a_peaceful_day() -> None:
    """一 技能二: 如第二名票数为零则自动变为平安夜."""
    g = Game()
    g.powers({ELDER: "归零 乙"})
    out = g.day({"壬": "乙", "癸": "乙", "子": "弃权"})
    assert len(g.living()) == 16
    assert "归零" in main_posts(out) and "平安夜" in main_posts(out)


def test_zero_tied_at_top_the_other_goes_out() -> None:
    """E6: the zero target among tied top scorers → the highest of the others goes out."""
    g = Game()
    g.powers({ELDER: "归零 乙"})
    g.day({"壬": "乙", "癸": "乙", "子": "丙", "丑": "丙", "寅": "丁"})
    assert g.alive("乙") and not g.alive("丙")


def test_zero_then_runner_up_tie_goes_to_the_lot() -> None:
    """E6: ties among the others after the zero → lottery."""
    g = Game()
    g.powers({ELDER: "归零 乙"})
    out = g.day({"壬": "乙", "癸": "乙", "子": "乙", "丑": "丙", "寅": "丁"})
    text = main_posts(out)
    assert "归零" in text and "丙、丁平票（各1票），天神抽签" in text
    assert g.alive("丙") != g.alive("丁")


def test_zero_not_on_top_is_secret_and_does_nothing() -> None:
    """一 技能二: 老人行权情况不公布 unless the target tops the vote."""
    g = Game()
    out = g.powers({ELDER: "归零 丙"})
    assert "归零" not in main_posts(out)
    out = g.day({"壬": "乙", "癸": "乙", "子": "丙"})
    assert "归零" not in main_posts(out) and not g.alive("乙")


def test_zero_works_on_a_hugged_player() -> None:
    """六 被花蝴蝶抱走的玩家…但归零技能可发动."""
    g = Game()
    g.powers({BUTTERFLY: "抱 乙", ELDER: "归零 乙"})
    g.day({"壬": "乙", "癸": "乙", "子": "丙"})
    assert g.alive("乙") and not g.alive("丙")


def test_zero_by_a_hugged_elder_is_void() -> None:
    """一: 当轮老人被蝴蝶抱…三个技能均无法生效 (E7)."""
    g = Game()
    g.powers({BUTTERFLY: "抱 辛", ELDER: "归零 乙"})
    g.day({"壬": "乙", "癸": "乙", "子": "丙"})
    assert not g.alive("乙") and g.alive("丙")


def test_elder_voted_out_revives_unless_hugged_that_round() -> None:
    """一 技能三 高票出局后自动复活 (E23 also after a lot); the example: hugged at night,
    voted out the next day → no revive."""
    g = Game()
    g.powers()
    out = g.day({"壬": "辛", "癸": "辛"})
    assert g.alive(ELDER) and "被投票出局后自动复活" in main_posts(out)
    g2 = Game()
    g2.powers({BUTTERFLY: "抱 辛"})
    out = g2.day({"壬": "辛", "癸": "辛"})
    assert not g2.alive(ELDER) and "身份：森林老人" in main_posts(out)


def test_muted_player_may_vote() -> None:
    """一 技能一: 被禁言的玩家可以投票 — a name-only vote counts."""
    g = Game()
    g.powers({ELDER: "禁言 壬"})
    out = g.post("壬", "乙")
    assert not out.notes and not out.refusals
    out = g.day({VILLAGERS[1]: "弃权"})
    assert not g.alive("乙") and "乙：1票（壬）" in main_posts(out)


def test_votes_for_a_player_removed_during_the_day_fall() -> None:
    g = Game()
    g.powers()
    g.post("壬", "投票 乙")
    g.post("癸", "投票 乙")
    g.post("子", "投票 丙")
    g.gm("modkill", player="乙", after=2)
    g.day()
    assert not g.alive("丙") and g.state.player("乙").death_cause == "modkill"


def test_outsider_post_in_the_vote_thread_is_reported() -> None:
    """补充 二 5: 非…游戏玩家在投票帖内发言，斑竹一律直接删除 — the bot tells the GM."""
    g = Game()
    g.powers()
    out = g.post("路人", "投票 乙")
    assert any("非游戏者" in n for n in out.notes) and voted(g) == {}
