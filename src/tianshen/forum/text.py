"""Text a forum can store: what every adapter does to a body just before it is sent.

NUL and the other C0 control characters (but tab and line breaks) are dropped: Django
refuses a form with NUL ("Null characters are not allowed"), PostgreSQL cannot store it,
and Discuz silently cuts the text there.  Lone surrogates (from a broken decoder upstream)
become U+FFFD.  A GBK board stores only GBK: anything else (emoji, €) is written as its
compatibility form, a plain-ASCII stand-in, or `?` — never as `&#NNNN;`, which a Discuz
board shows literally (it escapes the `&`).
"""

from __future__ import annotations

import re
import unicodedata

_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# stand-ins for characters GBK lacks that players and announcements do use
_STAND_INS = {"€": "EUR", "₩": "KRW", "₽": "RUB", "\u2014": "—", "\u2013": "-", "\u00a0": " ",
              "\u200b": "", "\ufeff": "", "\u200d": "", "\ufe0f": ""}


def storable(text: str, charset: str = "utf-8") -> str:
    """`text` with what the forum cannot store removed or replaced (see the module doc)."""
    clean = _SURROGATE.sub("\ufffd", _CONTROLS.sub("", text))
    if charset.lower() not in ("gbk", "gb2312", "gb18030", "cp936"):
        return clean
    return "".join(_fit_gbk(ch) for ch in clean)


def _fit_gbk(ch: str) -> str:
    if _in_gbk(ch):
        return ch
    if ch in _STAND_INS:
        return _STAND_INS[ch] if all(_in_gbk(c) for c in _STAND_INS[ch]) else "?"
    alt = unicodedata.normalize("NFKC", ch)
    return alt if alt != ch and all(_in_gbk(c) for c in alt) else "?"


def _in_gbk(ch: str) -> bool:
    try:
        ch.encode("gbk")
    except UnicodeEncodeError:
        return False
    return True
