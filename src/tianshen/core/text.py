"""Cleaning the text that comes in from outside (issue 13 item 6).

A NUL byte stops PostgreSQL (psycopg DataError), a lone surrogate cannot be encoded as
UTF-8, and other control characters show as garbage or break a forum's markup.  Every
string a PM, post or GM command carries is cleaned once, at intake (the pydantic
validators of core.model), so the forum, replay and admin paths are all covered.
"""

from __future__ import annotations

import re

# C0 controls except \t \n \r, DEL, and the C1 controls.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CRLF = re.compile(r"\r+\n")
_SURROGATE = re.compile("[\ud800-\udfff]")
# what `clean` changes: the controls above, a \r, a surrogate (most text has none of them)
_ODD = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def needs_cleaning(text: object) -> bool:
    """Whether `clean` would change or refuse `text` (a caller may skip it when not)."""
    return type(text) is not str or _SEARCH(text) is not None  # type: ignore[arg-type]


_SEARCH = _ODD.search


def odd_char(text: str) -> bool:
    """Whether `clean` would change the string `text` (`needs_cleaning` of a str).  No control
    character and no surrogate is printable: a text printable as it is, or once its line ends
    are taken out, needs no regex (most do not: ~60 instructions a character, ~15 printable)."""
    if text.isprintable() or "\n" in text and text.replace("\n", "").isprintable():
        return False
    return _SEARCH(text) is not None


def clean(text: str) -> str:
    """`text` without control characters (\\t \\n \\r kept, \\r\\n made \\n), with every lone
    surrogate replaced by U+FFFD; a surrogate pair left as two code points is joined."""
    if not isinstance(text, str):
        raise TypeError(f"expected a string, got {type(text).__name__}")
    if not _ODD.search(text):
        return text
    text = _CRLF.sub("\n", _CONTROLS.sub("", text))  # in this order: clean(clean(x)) == clean(x)
    return _fix_surrogates(text)


def _fix_surrogates(text: str) -> str:
    if not _SURROGATE.search(text):
        return text
    # UTF-16 round trip: a valid pair joins into one character, a lone half is replaced.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def clean_value(value: object) -> object:
    """`value` with every string inside it (lists, dicts, keys included) cleaned."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, list | tuple):
        return type(value)(clean_value(v) for v in value)
    if isinstance(value, dict):
        return {clean_value(k): clean_value(v) for k, v in value.items()}
    return value
