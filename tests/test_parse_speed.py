"""The fast forms of the text-parsing hot path (issue 15) read exactly as the plain ones."""

from __future__ import annotations

import sys
import unicodedata

from tianshen.core.abilities import table
from tianshen.core.grammar import VERBS, count_declaration_chars, normalize, parse_pm
from tianshen.core.text import clean
from tianshen.core.vote_post import read_target, read_vote_post
from tianshen.specs import load_spec

CLASSIC_VERBS = VERBS | table(load_spec("classic_10")).verbs()  # the shared verbs and classic's abilities

EVERY_CHAR = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)


def _plain_normalize(text: str) -> str:
    out = []
    for ch in text:
        if ch == "\u3000":
            out.append(" ")
        elif "\uff01" <= ch <= "\uff5e" and ch not in "：，；（）":
            out.append(unicodedata.normalize("NFKC", ch))
        else:
            out.append(ch)
    return "".join(out).replace("\r\n", "\n").replace("\r", "\n")


def test_normalize_of_every_character() -> None:
    assert normalize(EVERY_CHAR) == _plain_normalize(EVERY_CHAR)
    assert normalize("a\r\nb\rc") == "a\nb\nc"


def test_declaration_chars_of_every_character() -> None:
    assert count_declaration_chars(EVERY_CHAR) == sum(1 for ch in EVERY_CHAR if not ch.isspace())


def test_lone_surrogates_still_replaced() -> None:
    assert clean("a\ud800b") == "a\ufffdb"
    assert clean("\ud83d\ude00") == "\U0001f600"
    assert clean("投票 丙") == "投票 丙"


def test_a_cached_pm_is_handed_out_as_a_copy() -> None:
    first = parse_pm("杀 丙\n宣言的正文", CLASSIC_VERBS)
    first.commands[0].text = "changed"
    first.unknown.append("x")
    again = parse_pm("杀 丙\n宣言的正文", CLASSIC_VERBS)
    assert again.commands[0].text == "宣言的正文" and again.unknown == []


def test_a_ruleset_table_with_lists_and_a_plain_set() -> None:
    verbs = {v: list(words) for v, words in CLASSIC_VERBS.items()} | {"hug": ["抱"]}
    parsed = parse_pm("抱 丙\nKILL 丁", verbs, {"kill"})  # type: ignore[arg-type]
    assert [(c.verb, c.arg) for c in parsed.commands] == [("hug", "丙"), ("kill", "丁")]
    verbs["hug"] = ["拥抱"]  # the same table object, changed: read by its new words
    assert parse_pm("拥抱 丙", verbs).commands[0].verb == "hug"  # type: ignore[arg-type]


def test_vote_reading_takes_any_iterables() -> None:
    vote = read_vote_post("委托 丙，他可疑", iter(["甲", "丙"]), verbs={"delegate": iter(["委托"])}, abstain=iter(["弃权"]))
    assert vote is not None and (vote.verb, vote.name, vote.reason) == ("delegate", "丙", "他可疑")
    assert read_target("小丙 因为", ("丙",), {"小丙": "丙"}).name == "丙"
    assert read_target("小丙", ("丙",), {}).name is None
