"""Issue 37: the memory board's PM read takes one bound for the lag and the read's own second
(`pm_same_second`), not a second time made for every read; the PMs it lists are exactly
those sent by the read's lag and before the read's own second, to the microsecond."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tianshen.forum.memory import MemoryBoard

GM = "神的使者"
S = datetime(2026, 1, 1, 20, 0, 5, tzinfo=UTC)  # a whole second
US = timedelta(microseconds=1)


def _shown(sent: datetime, read: datetime, lag_s: float, same_second: bool) -> bool:
    """The board's rule as documented: lagged by `lag_s`, and none of the read's own second."""
    if sent > read - timedelta(seconds=lag_s):
        return False
    return not (same_second and sent >= read.replace(microsecond=0))


@pytest.mark.parametrize("same_second", [True, False])
@pytest.mark.parametrize("lag_s", [0, 0.5, 2])
def test_a_pm_read_lists_the_pms_by_the_lag_and_before_the_reads_own_second(same_second: bool,
                                                                             lag_s: float) -> None:
    sents = [S - timedelta(seconds=3), S - US, S, S + US, S + timedelta(seconds=0.5) - US,
             S + timedelta(seconds=0.5), S + timedelta(seconds=0.75)]
    reads = [S, S + US, S + timedelta(seconds=0.5), S + timedelta(seconds=0.75), S + timedelta(seconds=1) - US,
             S + timedelta(seconds=1), S + timedelta(seconds=2.5), S + timedelta(seconds=3)]
    for read in reads:
        now = [sents[0]]
        board = MemoryBoard(lambda now=now: now[0], pm_same_second=same_second, pm_lag_s=lag_s)
        forum = board.gm()
        forum.login()
        ids = {}
        for sent in sents:
            now[0] = sent
            ids[board.pm("甲", GM, f"{sent}")] = sent
            board.pm(GM, "甲", "回执")  # the GM's own PMs are never listed
        now[0] = read
        got = [pm.id for pm in forum.fetch_pms(None)]
        assert got == [i for i, sent in ids.items() if _shown(sent, read, lag_s, same_second)], (read, got)
