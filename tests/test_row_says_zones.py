"""Issue 37: `row_says` looks at an input's zone by `tzinfo is UTC` first (`utcoffset()`
costs a call of the zone's method by name); any other zone is judged by its offset, as
before: a zero offset in another zone object says as much as UTC, any other offset not."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from tianshen.core.model import PmIn
from tianshen.store.store import InboundRecord, row_says

AT = datetime(2026, 1, 1, 20, 0, 5, 123456, tzinfo=UTC)


@pytest.mark.parametrize(("zone", "says"), [
    (UTC, True), (timezone(timedelta(0)), True), (ZoneInfo("UTC"), True), (ZoneInfo("Europe/London"), True),
    (timezone(timedelta(hours=8)), False), (ZoneInfo("Asia/Shanghai"), False),
    (timezone(timedelta(microseconds=1)), False)])
def test_an_inputs_zone_is_judged_by_its_offset(zone: object, says: bool) -> None:
    at = AT.astimezone(zone)  # type: ignore[arg-type]  # (the same moment)
    row = InboundRecord(source="pm", forum_id="m1", sender="丙", sent_at=AT, text="天神你好")
    assert row_says(PmIn(id="m1", sender="丙", at=at, text="天神你好"), row) is says
