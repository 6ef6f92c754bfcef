"""Issue 23 item 10: a vote-thread post with no readable vote is answered once a vote, and
the GM's "请在截止前重新投票" can be answered with `重新投票 名字`; a Markdown quote does not
swallow the player's own vote line after it."""

from __future__ import annotations

import pytest

import test_vote_posts_butterfly as bf
import test_vote_posts_classic as classic
import test_vote_posts_hex as hexes
import test_vote_posts_n_lives as nl
from classic_helpers import pms_to
from tianshen.core.model import GmIn
from tianshen.core.vote_post import read_vote_post

NAMES = ["寒梅", "白狐", "丙"]


@pytest.mark.parametrize("text", ["重新投票 寒梅", "重新投票：寒梅，理由同上", "我重新投票寒梅"])
def test_a_vote_cast_again_is_read(text: str) -> None:
    vote = read_vote_post(text, NAMES)
    assert vote is not None and vote.name == "寒梅" and not vote.error


@pytest.mark.parametrize("text", [
    "> 请在截止前重新投票\n> 重新投票 寒梅",  # Spirit's page: the typed line joined the quote
    "> @白狐 said:\n> 天神作废了我的票\n> 投票 寒梅，理由同上",
])
def test_a_vote_line_swallowed_by_a_quote_counts(text: str) -> None:
    vote = read_vote_post(text, NAMES)
    assert vote is not None and vote.name == "寒梅" and vote.after_quote


@pytest.mark.parametrize("text", ["> 投票 寒梅", "> 白狐说\n>\n> 投票 寒梅", "> 白狐说：投票 寒梅\n\n我再想想"])
def test_a_quoted_vote_is_not_the_posters(text: str) -> None:
    """The first line of a quoted paragraph, or a quote the player wrote after, is quoted."""
    assert read_vote_post(text, NAMES) is None


def test_the_players_own_line_after_a_quote_is_his_vote_on_spirit() -> None:
    from bs4 import BeautifulSoup

    from tianshen.forum.spirit import html_to_text
    # mistune's page for "> 请在截止前重新投票\n重新投票 寒梅" (lazy continuation, hard wraps)
    html = "<div><blockquote>\n<p>请在截止前重新投票<br>\n重新投票 寒梅</p>\n</blockquote></div>"
    text = html_to_text(BeautifulSoup(html, "html.parser").div)
    vote = read_vote_post(text, NAMES)
    assert vote is not None and vote.name == "寒梅"


def _hinted(out, name: str) -> list[str]:
    return [b for b in pms_to(out, name) if "没有被算作投票" in b]


def test_classic_a_chat_post_is_answered_once_per_vote() -> None:
    g = classic.day_game()
    first = g.post("甲", "大家好，我再想想")
    body = _hinted(first, "甲")
    assert len(body) == 1 and "投票 名字" in body[0] and "大家好" in body[0]
    assert "§" not in body[0]
    assert not _hinted(g.post("甲", "还是没想好", hours=1.5), "甲")  # once a vote, not once a post
    assert _hinted(g.post("乙", "路过"), "乙")  # each player his own
    assert not g.post("甲", "投票 庚", hours=2).refusals and classic.ballot(g, "甲") == "庚"
    assert not _hinted(g.post("丙", "投票 庚", hours=2), "丙")
    assert not _hinted(g.post("丙", "补充一下理由", hours=2.5), "丙")  # he has voted


def test_classic_recast_after_the_gm_voided_the_vote() -> None:
    """001 §5.1 no change; after the GM voids a vote the player votes again (gm_voided_vote)."""
    g = classic.day_game()
    g.post("甲", "投票 庚")
    voided = g._apply(GmIn(id="gm-1", at=g.at(1.5), command="void_vote", args={"player": "甲"}, reason="测试"))
    assert "重新投票" in pms_to(voided, "甲")[0]
    out = g.post("甲", "重新投票 辛", hours=2)
    assert not out.refusals and classic.ballot(g, "甲") == "辛"
    again = g.post("甲", "重新投票 庚", hours=3)  # a vote stands again: 001 §5.1
    assert again.refusals and classic.ballot(g, "甲") == "辛"


def test_n_lives_a_chat_post_is_answered_once() -> None:
    g = nl.day_game()
    assert len(_hinted(g.post("甲", "我再想想"), "甲")) == 1
    assert not _hinted(g.post("甲", "再想想", hours=1.5), "甲")
    assert not g.post("甲", "重新投票 戊", hours=2).refusals and nl.ballot(g, "甲") == "戊"


def test_hex_a_chat_post_is_answered_once() -> None:
    g = hexes.day_game()
    assert len(_hinted(g.post("甲", "我再想想"), "甲")) == 1
    assert not _hinted(g.post("甲", "再想想", hours=1.5), "甲")
    assert not g.post("甲", "重新投票 乙", hours=2).refusals and hexes.ballot(g, "甲")["target"] == "乙"


def test_butterfly_a_chat_post_is_answered_once_and_not_after_a_vote() -> None:
    g = bf.Game()
    g.powers()
    assert len(_hinted(g.post("壬", "我再想想"), "壬")) == 1
    assert not pms_to(g.post("壬", "再想想", hours=1.5), "壬")
    g.post("癸", "投票 乙")
    assert not pms_to(g.post("癸", "理由补充", hours=2), "癸")
    assert not g.post("壬", "重新投票 乙", hours=2).refusals and bf.voted(g)["壬"] == "乙"


def test_a_recast_sent_by_pm_is_told_where_to_post_it() -> None:
    g = classic.day_game()
    reply = pms_to(g.pm("甲", "重新投票 庚"), "甲")
    assert len(reply) == 1 and "投票帖" in reply[0] and "没有看懂" not in reply[0]


def test_a_vote_after_a_quote_counts_and_the_gm_is_told() -> None:
    g = classic.day_game()
    out = g.post("甲", "> 天神：请在截止前重新投票\n> 重新投票 庚")  # as Spirit's page shows it
    assert not out.refusals and classic.ballot(g, "甲") == "庚"
    assert any("引用" in n and "void-vote 甲" in n for n in out.notes)
