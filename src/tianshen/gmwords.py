"""Words for the GM's eyes (the CLI, the daemon's log): a duration as people say it in
English, never a raw `timedelta` (issue 32 item 9: `dealt 0:25:05.975911 after its start`).
Player-facing Chinese durations are core.clock's."""

from __future__ import annotations

import re
from datetime import timedelta


def span(d: timedelta) -> str:
    """`2 d 3 h`, `1 h 5 min`, `25 min 6 s`, `40 s`: the two largest units, rounded to the second."""
    total = round(abs(d.total_seconds()))
    parts = [(total // 86400, "d"), (total % 86400 // 3600, "h"), (total % 3600 // 60, "min"), (total % 60, "s")]
    while parts and parts[0][0] == 0:
        parts.pop(0)
    if not parts:
        return "0 s"
    shown = " ".join(f"{n} {unit}" for n, unit in parts[:2] if n)
    return f"-{shown}" if d.total_seconds() < 0 else shown


_CITED = r"(?:DECISIONS\s*)?(?:\d{3}\s*)?§\s*\d+(?:\.\d+)*|DECISIONS\s+[A-Z]\d+"
_CITATION_ALONE = re.compile(rf"\s*[（(]\s*(?:{_CITED})\s*[）)]")
_CITATION = re.compile(rf"\s*(?:{_CITED})\s*")


def without_citations(text: str) -> str:
    """A GM note as a PM on the forum (issue 32 item 9): no clause numbers.  「（003 §8.4）」
    goes; 「按 DECISIONS §3.1.7（弃权者退出游戏）」 and 「按 001 §5.3 退出」 say 「按规则」.
    The logs and the status views keep the citations."""
    return _CITATION.sub("规则", _CITATION_ALONE.sub("", text))
