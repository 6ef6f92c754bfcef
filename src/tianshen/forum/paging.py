"""A board's thread list read page after page (the Discuz and PHPWind adapters)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol, TypeVar


class _Row(Protocol):
    @property
    def tid(self) -> int: ...


R = TypeVar("R", bound=_Row)


def new_rows(page_rows: Callable[[int], tuple[list[R], int]], max_pages: int = 200) -> Iterator[R]:
    """The rows of pages 1, 2, … (`page_rows(page)` gives a page's rows and the page count), read
    as the caller goes on; each thread once.  Stops after the last page, at `max_pages`, or at a
    page with no thread not seen before (past the last page, some boards show the last one again)."""
    seen: set[int] = set()
    page = 1
    while page <= max_pages:
        rows, pages = page_rows(page)
        new = [r for r in rows if r.tid not in seen]
        if not new:
            return
        for row in new:
            seen.add(row.tid)
            yield row
        if page >= pages:
            return
        page += 1
