"""Issue 37, store13: the store path's speed changes, each pinned where it could go wrong."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import create_engine

from tianshen.store import store as store_module
from tianshen.store.models import UTCDateTime

_PROC = UTCDateTime()._cached_bind_processor(create_engine("sqlite://").dialect)  # (as compiled: a text)


@settings(max_examples=300, deadline=None)
@given(st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999)))
def test_a_utc_times_text_on_sqlite_is_sqlalchemys(naive: datetime) -> None:
    """A UTC time's text made from its own isoformat (no naive copy first) is SQLAlchemy's,
    byte for byte: any year, a whole second (no fraction dropped) or not."""
    quick = store_module._quick(UTCDateTime(), "sqlite", _PROC)
    value = naive.replace(tzinfo=UTC)
    assert quick(value) == _PROC(value)
