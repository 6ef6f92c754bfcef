"""The public page shows the close's count (issue 34): a closed day's rows, totals and
executed are the result post's, in the page's own words."""

from __future__ import annotations

import re
import warnings

import pytest
from web_game import TOKEN, play_until

from tianshen.web.app import WebSettings, create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def day_block(html: str, n: int) -> str:
    return text_of(re.search(rf'<details class="day" data-key="day-{n}".*?</details>\s*</div>', html, re.S).group(0))


def after_day_one(tmp_path, variant: str):
    running = play_until(f"sqlite:///{tmp_path / 'g.db'}", variant, 3,
                         lambda s: s.phase.kind == "night" and s.phase.number == 2 or s.phase.kind == "over")
    html = TestClient(create_app(running.store, WebSettings(token=TOKEN))).get(f"/game/{running.driver.game_id}").text
    result = next(o.body for o in running.store.outbox(running.driver.game_id)
                  if o.kind == "post" and o.target == "main" and "投票结果" in o.body)
    return day_block(html, 1), result


def test_n_lives_shows_card_counts_and_the_executed(tmp_path) -> None:
    block, result = after_day_one(tmp_path, "n_lives")
    rows = re.findall(r"^\| (\S+) \| (?:\d+→)?(\d+) \|", result, re.M)
    executed = re.findall(r"^(\S+?)被处决，", result, re.M)
    assert rows and executed
    for name, total in rows:
        assert f"{name} ({total})" in block
    assert f"被处决： {'、'.join(executed)}" in block
    assert "本日无人出局" not in block


def test_hex_shows_self_votes_and_the_punished(tmp_path) -> None:
    block, result = after_day_one(tmp_path, "hex_survival_12")
    rows = re.findall(r"^\| (\S+) \| (\d+)票 \|", result, re.M)
    punished = re.search(r"被惩处：\*\*(.+?)\*\*", result).group(1)
    for name, total in rows:
        assert f"{name} ({total})" in block
    assert f"受惩处： {punished}" in block
    if "视为投给自己" in result:
        assert "未投票，视为投给自己" in block and "未投票 (" not in block


@pytest.mark.parametrize("variant", ["classic_10", "game_ten"])
def test_classic_shows_the_curse_and_bless_the_board_applied(tmp_path, variant: str) -> None:
    block, result = after_day_one(tmp_path, variant)
    rows = re.findall(r"^\| (\S+) \| (\d+)票 \| .*? \| (.*?) \|$", result, re.M)
    assert rows
    for name, total, note in rows:
        assert f"{name} ({total}){' ' + note.strip() if note.strip() else ''}" in block
