"""A rehearsal's transcript (issue 37): with a printer told as the game goes, without one
made when read, the same lines either way, each catch-up's part as the board showed it
then (a post edited later keeps the text it had)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tianshen.forum.memory import MemoryBoard
from tianshen.sim.rehearsal import Transcript, VirtualClock, rehearse

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _play(transcript: Transcript, board: MemoryBoard, clock: VirtualClock) -> None:
    thread = board.new_thread("甲", "主帖", "开局")
    transcript.catch_up()
    clock.set(START + timedelta(minutes=1))
    first = board.post("乙", thread, "投票 丙")
    board.edit(first, "乙", "投票 丁")  # edited before the catch-up: shown edited
    board.pm("丙", "神的使者", "查验 甲")
    transcript.catch_up()
    board.edit(first, "乙", "投票 戊")  # after it: the part already seen keeps 投票 丁
    second = board.post("丙", thread, "弃票")  # (the same time as the part before: its own part)
    transcript.catch_up()
    board.edit(second, "丙", "投票 甲")
    transcript.catch_up()


def test_a_transcript_made_when_read_is_the_one_told_as_the_game_went() -> None:
    told: list[list[str]] = []
    for printer in (lambda line: None, None):
        clock = VirtualClock(START)
        board = MemoryBoard(clock.now)
        transcript = Transcript(board, printer)
        _play(transcript, board, clock)
        told.append(list(transcript.lines))
    assert told[0] == told[1] and len(told[0]) == 4
    assert "投票 丁" in told[0][1] and "弃票" in told[0][3]


def test_a_rehearsal_without_a_printer_reads_the_board_once_for_its_transcript(
        monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    activity = MemoryBoard.activity

    def counted(self: MemoryBoard, *args, **kwargs):  # type: ignore[no-untyped-def]
        reads.append(1)
        return activity(self, *args, **kwargs)

    monkeypatch.setattr(MemoryBoard, "activity", counted)
    result = rehearse("classic_8", 2, "sqlite://")
    assert reads == []  # not while the game went on
    lines = result.transcript
    assert len(reads) > 5 and result.transcript == lines  # once per part when read, then kept
    printed: list[str] = []
    assert rehearse("classic_8", 2, "sqlite://", printer=printed.append).transcript == printed == lines
