"""Issue 23 item 12: a reason after the name in a PM (`诅咒 寒梅，她发言很怪`) is read as in
vote posts: the name ends at the separator and the reason is left aside; a name run on into
the text, or one that fits two players, is an error, never a guess (core.names)."""

from __future__ import annotations

import pytest

from classic_helpers import Game, pms_to
from tianshen.core.names import NameMatchError, match_name

NAMES = ["寒梅", "白狐", "丙", "丙丁"]


@pytest.mark.parametrize("written, name", [
    ("寒梅，她发言很怪", "寒梅"), ("寒梅 因为她很怪", "寒梅"), ("“寒梅”：理由见投票帖", "寒梅"),
    ("丙，丁字写得像", "丙"), ("丙丁 理由", "丙丁"), ("寒梅", "寒梅"),
])
def test_the_name_ends_at_the_separator(written: str, name: str) -> None:
    assert match_name(written, NAMES) == name


@pytest.mark.parametrize("written, said", [
    ("寒梅她发言很怪", "逗号或空格"),  # no separator: no guess
    ("丙、丙丁", "“丙”、“丙丁”"),  # two players
    ("某某，理由", "游戏者名单"),
])
def test_no_guess(written: str, said: str) -> None:
    with pytest.raises(NameMatchError) as err:
        match_name(written, NAMES)
    assert said in err.value.message and "§" not in err.value.message


def test_a_curse_with_a_reason_is_taken() -> None:
    g = Game(10)
    out = g.pm("戊", "诅咒 庚，他发言很怪")
    assert not out.refusals and g.state.data["subs"]["curse"]["戊"] == "庚"
    assert "庚" in pms_to(out, "戊")[0]


def test_a_kill_with_a_reason_on_the_line_is_taken() -> None:
    g = Game(10)
    out = g.pm("甲", "杀 庚，理由：他太像占卜\n" + "夜色沉沉，" * 30)
    assert not out.refusals and g.state.data["subs"]["kill"]["甲"] == "庚"
