"""Reading a vote post as players write it (issue 17), shared by every ruleset.

A vote line is a verb, the target, then the reason, on one line or several:
`投票 丑，因为他昨晚攻击了我`, `投丑 因为他很可疑`, `改票：投票 丙`, `票投丙\n理由：……`.
003 §9.6: 投票不要求固定格式，只要在跟贴中清晰、明确的指定一个投票对象并说明自己的投票理由即可.

* The target is the longest player name (or alias) the text after the verb starts with,
  followed by a separator: punctuation (full- or half-width), a space, 因为/理由/原因, a line
  break or the end.  A written name is matched exactly first, then ignoring width and case.
* Names that are prefixes of one another resolve by that rule (丙 / 丙丁: `投丙丁` is 丙丁,
  `投丙，丁…` is 丙).  When two players still fit (a longer name that goes on with a
  separator, width twins Ａ甲 / A甲 written neither way), or the vote line lists two players
  (`投票 丙、丁`), the vote is ambiguous and both names are given back; it is never a guess.
  Only when no name is followed by a separator does the longest name the text starts with
  count (`投丙他很可疑`).
* Verbs: 投票/投/重新投票/改票/改投/票投/vote, plus a ruleset's own (委托投票, 弃票 where allowed),
  at the start of the line or after a leading 我/我要/我决定/本人; a 给 after the verb is
  part of it (`我投给丙`: the verb 投给).
* An unknown name is echoed whole, as written up to its separator (issue 27).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

from tianshen.core.intake import Refused
from tianshen.core.outbox import Messages
from tianshen.core.spec import RulesetSpec

# 重新投票: how a player answers the GM's "请在截止前重新投票" (issue 23 item 10); a vote like
# any other, which each family's own ballot rules accept or refuse (001 §5.1 no change, 003 §9.3…)
VOTE_WORDS = ("重新投票", "重新投", "投票", "改票", "改投", "票投", "投", "vote")
CHANGE_WORDS = ("改票", "改投")  # 003 §9.3: a change is made by a new reply
REASON_WORDS = ("因为", "理由", "原因")
SUBJECTS = ("我要", "我决定", "我", "本人")  # `我投丙`, `我要改投丙`: the voter before the verb
# characters that end a name: punctuation of both widths, spaces, brackets and quotes
_STOP = set(" \t\n\u3000:：,，、.。;；!！?？…-—=＝>~～/|()（）[]【】<>《》「」『』“”\"'·")
_OPEN = "“「『《【(（[\"'"
_LIST = " \t\u3000,，、/|;；和或及与&+"  # what joins two names in a list (`丙、丁`, `丙或丁`)
_SEP = "".join(sorted(_STOP - {"\n"}))
_QUOTE = re.compile(r"\[quote\].*?\[/quote\]", re.S | re.I)
ACCEPTED_FORM = "投票 名字（理由可以写在同一行，如：投票 丙，因为……）"
NO_NAME = "没有写投票对象。"
# the arguments as cache keys: aliases as (alias, player) pairs, verbs as (verb, words) pairs
AliasesKey = tuple[tuple[str, str], ...] | None
VerbsKey = tuple[tuple[str, tuple[str, ...]], ...] | None
VerbTable = tuple[tuple[str, str, str], ...]  # (word, verb, word lowered), longest word first


@dataclass(frozen=True)
class Target:
    """What the text after a verb names: one player, or why not."""

    name: str | None  # the player, None when refused
    reason: str = ""  # the text after the name and its separator
    candidates: tuple[str, ...] = ()  # for an ambiguous target: every player it can mean
    error: str = ""  # plain Chinese, "" when a player was found
    loose: bool = False  # found with no separator after the name (`投丙他很可疑`)

    @property
    def ambiguous(self) -> bool:
        return len(self.candidates) > 1


@dataclass(frozen=True)
class VotePost:
    """One vote post, read.  `verb` is "vote", "abstain" or a ruleset's own verb."""

    verb: str
    word: str  # the verb as written (投票, 改票…)
    line: str  # the vote line as written
    target: Target = field(default_factory=lambda: Target(None))
    change: bool = False  # written as 改票/改投
    others: str = ""  # the post's other lines (a reason below the vote line, chat)
    below: bool = False  # the verb stands alone and the name is on the next line
    after_quote: bool = False  # read from the lines a Markdown quote swallowed (`_swallowed`)
    # the target's player, kept as a plain attribute (every vote post reads it twice or more;
    # a reading is kept, so it is set once a reading, issue 37); not compared, not shown
    name: str | None = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.target.name)

    @property
    def reason(self) -> str:
        return self.target.reason

    @property
    def blank(self) -> bool:
        """A verb with nothing after it (003 §9.5 counts it for the voter himself)."""
        return self.verb == "vote" and self.target.name is None and not self.target.candidates and \
            self.target.error == NO_NAME

    @property
    def ambiguous(self) -> bool:
        return self.target.ambiguous

    @property
    def error(self) -> str:
        return "" if self.verb == "abstain" else self.target.error


@lru_cache(maxsize=65536)
def width_fold(text: str) -> str:
    """Width- and case-insensitive, spaces kept (names.fold drops them: not for prefixes)."""
    return unicodedata.normalize("NFKC", text).casefold()


def _at_boundary(rest: str) -> bool:
    return not rest or rest[0] in _STOP or rest.startswith(REASON_WORDS)


def _skip_separator(rest: str) -> str:
    """The reason: what follows the name, without the separator before it."""
    rest = rest.lstrip(_SEP)
    for word in REASON_WORDS:
        if rest.startswith(word):
            rest = rest[len(word):]
            break
    return rest.lstrip("".join(_STOP)).strip()


@dataclass(frozen=True)
class _Keys:
    """The names and aliases a target may be written as, ready for matching."""

    keys: tuple[tuple[str, str, str, int], ...]  # (written key, player, its width fold, its length)
    lengths: frozenset[int]  # the lengths of the keys


@lru_cache(maxsize=256)
def _keys(names: tuple[str, ...], aliases: AliasesKey) -> _Keys:
    pairs = [(n, n) for n in names if n] + [(a, p) for a, p in aliases or () if a and p in names]
    return _Keys(tuple((k, p, width_fold(k), len(k)) for k, p in pairs), frozenset(len(k) for k, _ in pairs))


def _folds(text: str, keys: _Keys) -> dict[int, str]:
    """The width fold of the text's prefix of every key length."""
    return {n: width_fold(text[:n]) for n in keys.lengths}


def _hits(text: str, keys: _Keys) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(exact, width-folded) prefix hits of (written key, player), each followed by a separator."""
    exact = [(k, p) for k, p, _, n in keys.keys if text.startswith(k) and _at_boundary(text[n:])]
    prefix = _folds(text, keys)
    folded = [(k, p) for k, p, fk, n in keys.keys if prefix[n] == fk and _at_boundary(text[n:])]
    return exact, folded


def _longest_unbounded(text: str, keys: _Keys) -> list[tuple[str, str]]:
    """The longest names the text starts with when no separator follows (`投丙他很可疑`)."""
    hits = [(k, p) for k, p, _, _ in keys.keys if text.startswith(k)]
    if not hits:
        prefix = _folds(text, keys)
        hits = [(k, p) for k, p, fk, n in keys.keys if prefix[n] == fk]
    if not hits:
        return []
    top = max(len(k) for k, _ in hits)
    return [(k, p) for k, p in hits if len(k) == top]


def _aliases_key(aliases: Mapping[str, str] | None) -> AliasesKey:
    return tuple(aliases.items()) if aliases else None


def read_target(text: str, names: Iterable[str], aliases: Mapping[str, str] | None = None) -> Target:
    """The player the text starts with (name or alias), the reason after it, or why not."""
    return _target(text, tuple(names), _aliases_key(aliases))


@lru_cache(maxsize=4096)
def _target(text: str, names: tuple[str, ...], aliases: AliasesKey) -> Target:
    keys = _keys(names, aliases)
    text = text.strip().lstrip("".join(_STOP)).lstrip(_OPEN).strip()
    if not text:
        return Target(None, error=NO_NAME)
    exact, folded = _hits(text, keys)
    hits = exact or folded
    loose = not hits
    hits = hits or _longest_unbounded(text, keys)
    players = list(dict.fromkeys(p for _, p in hits))
    if not players:
        return Target(None, error=_unknown(text, names))
    if len(players) > 1:
        return Target(None, candidates=tuple(players), error=_ambiguous(players))
    key = max((k for k, p in hits if p == players[0]), key=len)
    rest = text[len(key):]
    second = _listed_second(rest, keys, players[0])
    if second:
        both = [players[0], second]
        return Target(None, candidates=tuple(both), error=f"这一票同时写了{_list(both)}，只能投一人。")
    return Target(players[0], reason=_skip_separator(rest), loose=loose)


def _listed_second(rest: str, keys: _Keys, first: str) -> str | None:
    """Another player listed right after the target on the vote line (`丙、丁`, `丙 或 丁`);
    a name after 因为/理由 is part of the reason."""
    line = rest.split("\n", 1)[0]
    after = line.lstrip(_LIST + _SEP).lstrip(_OPEN)
    if not after or line.startswith(REASON_WORDS) or after.startswith(REASON_WORDS):
        return None
    exact, folded = _hits(after, keys)
    others = [p for _, p in (exact or folded) if p != first]
    return others[0] if others else None


def _unknown(text: str, names: tuple[str, ...]) -> str:
    return f"没有读出投给谁：“{_token(text)}”不是以游戏者的名字开头。游戏者名单：{_list(names)}。"


MAX_ECHO = 40  # longer than any forum name: only a run-on line is cut, and marked with …


def _token(text: str) -> str:
    """What the player wrote where the name should be, whole: up to the first separator
    (punctuation, a space, 因为/理由/原因, the line's end), never a prefix cut mid-word."""
    end = next((i for i in range(len(text)) if _at_boundary(text[i:])), len(text))
    token = text[:end]
    return token if len(token) <= MAX_ECHO else token[:MAX_ECHO] + "…"


def _ambiguous(players: list[str]) -> str:
    return f"写的名字可以指{_list(players)}，请写出完整、准确的名字。"


def _list(names: Iterable[str]) -> str:
    return "、".join(f"“{n}”" for n in names)


# ---- posts ----------------------------------------------------------------------------


def _lines(post_text: str) -> list[str]:
    """The post's own lines: quotes ([quote]…[/quote], `> ` lines) and blank lines dropped."""
    # not grammar.normalize: it folds full-width letters, and "Ａ甲" and "A甲" may be two players
    text = _QUOTE.sub("", post_text).replace("\r\n", "\n").replace("\r", "\n")
    return [ln.strip() for ln in text.split("\n") if ln.strip() and not ln.strip().startswith(">")]


_SENTENCE = re.compile(r"(?<=[。！？!?；;])")


def _sentences(line: str) -> list[str]:
    """A line's sentences, each with its end mark (`我不同意楼上。`, `投票 丁，理由：…`)."""
    return [s.strip() for s in _SENTENCE.split(line) if s.strip()]


def _swallowed(post_text: str) -> list[str]:
    """The lines a Markdown quote may have swallowed from the player (issue 23 item 10).

    On a Markdown forum (Spirit) a quote's paragraph goes on over the following non-blank
    lines (lazy continuation): `> 请在截止前重新投票` then `重新投票 寒梅` on the next line is
    one quoted paragraph, and the forum's page shows both lines as quoted.  So the lines of
    the post's last `> ` quote, when it ends the post, after the first line of its last
    paragraph, may be the player's own.  Only the trailing `> ` quote of a post is read so
    ([quote] tags close explicitly)."""
    text = _QUOTE.sub("", post_text).replace("\r\n", "\n").replace("\r", "\n")
    lines = [ln.strip() for ln in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    tail: list[str] = []
    for ln in reversed(lines):
        if not ln.startswith(">"):
            break
        body = ln[1:].strip()
        if not body or body.startswith(">"):
            break  # the paragraph's start (a `>` alone) or a nested quote
        tail.insert(0, body)
    return tail[1:]  # the paragraph's first line is quoted for sure


@lru_cache(maxsize=64)
def _verb_words(verbs: VerbsKey) -> VerbTable:
    """(word, verb, word lowered), longest word first."""
    table = [(w, "vote") for w in VOTE_WORDS] + [(w, v) for v, ws in verbs or () for w in ws]
    return tuple((w, v, w.lower()) for w, v in sorted(table, key=lambda x: -len(x[0])))


def _starts_word(text: str, words: Iterable[str]) -> str | None:
    """The longest of `words` the text starts with, followed by a separator."""
    hits = [w for w in words if text.lower().startswith(w.lower()) and _at_boundary(text[len(w):])]
    return max(hits, key=len) if hits else None


def _verb_parses(line: str, table: VerbTable) -> list[tuple[str, str, str]]:
    """Every (verb, word, rest) the line can start with, longest word first: `投票丙` is 投票 + 丙
    and 投 + 票丙; `改票：投票 丙` is one verb (the change); `投给丙` is first the verb 投给 + 丙,
    then 投 + 给丙 (a player may be called 给力).  `word` is the verb as written, 给 included."""
    parses = []
    low = line.lower()
    for word, verb, low_word in table:
        if not low.startswith(low_word):
            continue
        rest = line[len(word):]
        inner = [(v, r) for v, _, r in _verb_parses(rest.lstrip(_SEP), table)] if verb == "vote" else []
        parses += [(verb, word, r) for v, r in inner if v == "vote"]
        if rest.lstrip(_SEP).startswith("给"):  # 投给丙, 投票给丙: 给 belongs to the verb
            after = rest.lstrip(_SEP)[1:]
            parses.append((verb, line[:len(line) - len(after)], after))
        parses.append((verb, word, rest))
    return parses


def _read_line(line: str, next_line: str, names: tuple[str, ...], aliases: AliasesKey,
               table: VerbTable, abstain: tuple[str, ...]) -> VotePost | None:
    """The vote of one line (`next_line` holds the name when the verb stands alone).  When the
    line can be split into verb and name in several ways, they must agree on the player."""
    if word := _starts_word(line, abstain):
        return VotePost("abstain", word, line)
    parses = _verb_parses(line, table)
    subject = next((s for s in SUBJECTS if line.startswith(s)), "")
    if not parses and subject:
        parses = _verb_parses(line[len(subject):].lstrip(_SEP), table)
    if not parses:
        return None
    reads = []
    for verb, word, rest in parses:
        change = word.startswith(CHANGE_WORDS)
        written = rest.strip().lstrip(_SEP)
        if _starts_word(written, abstain):
            return VotePost("abstain", word, line, change=change)
        target = _target(written or next_line, names, aliases)
        reads.append(VotePost(verb, word, line, target, change, below=not written and bool(next_line)))
    for found in ([v for v in reads if v.ambiguous or v.name and not v.target.loose], [v for v in reads if v.name]):
        players = list(dict.fromkeys(n for v in found for n in (v.target.candidates or (v.name,))))
        if len(players) > 1 and len(found) == 1:
            return found[0]  # one reading, itself ambiguous: its own message (`丙、丁`)
        if len(players) > 1:
            both = Target(None, candidates=tuple(players), error=_ambiguous(players))
            return replace(found[0], target=both)
        if players:
            return found[0]
    return reads[0]


def read_vote_post(post_text: str, names: Iterable[str], aliases: Mapping[str, str] | None = None,
                   verbs: Mapping[str, Iterable[str]] | None = None,
                   abstain: Iterable[str] = (), free_text: bool = False) -> VotePost | None:
    """The vote of a post, or None when the post has no vote line (no verb, not a name).

    With `free_text` (a rule that asks no fixed form, 003 §9.6), a vote inside a line counts
    too: when no line starts with a verb, each sentence of a line is read as a line, so
    `我不同意楼上。投票 丁，理由：…` votes for 丁; votes for two players stay ambiguous.

    `verbs` adds a ruleset's own words (canonical verb -> words, e.g. {"delegate": ("委托投票",)});
    `abstain` the words of an abstention where the ruleset allows one (004: 弃权, 弃票).
    The first readable line starting with a verb is the vote; another vote line for another
    player makes the post ambiguous.  A post whose first line is only a name votes for him.
    """
    words = tuple((v, tuple(ws)) for v, ws in verbs.items()) if verbs else None
    # (the keys inline: every vote post reads one; a tuple given is the key as it is)
    return _vote_post(post_text, names if type(names) is tuple else tuple(names),
                      tuple(aliases.items()) if aliases else None, words,
                      abstain if type(abstain) is tuple else tuple(abstain), free_text)


@lru_cache(maxsize=4096)
def _vote_post(post_text: str, names: tuple[str, ...], aliases: AliasesKey, verbs: VerbsKey,
               abstain: tuple[str, ...], free_text: bool = False) -> VotePost | None:
    """read_vote_post on hashable arguments (its answer is frozen: one post read once is enough)."""
    table = _verb_words(verbs)
    lines = _lines(post_text)
    found = _found(lines, names, aliases, table, abstain)
    if free_text and not any(v.verb == "abstain" or v.name is not None or v.ambiguous for v in found):
        sentences = [s for ln in lines for s in _sentences(ln)]
        inner = [v for v in _found(sentences, names, aliases, table, abstain)
                 if v.verb == "abstain" or v.name is not None or v.ambiguous]
        if inner:
            found, lines = inner, sentences
    if not found and not _name_only(lines, names, aliases) and (tail := _swallowed(post_text)):
        # issue 23 item 10: the player's own vote line after a quote, swallowed by the quote
        found = [replace(v, after_quote=True) for v in _found(tail, names, aliases, table, abstain)
                 if v.verb == "abstain" or v.name is not None]
        if found:
            lines = tail
    if not found:
        return _name_only(lines, names, aliases)
    vote = _first_or_ambiguous(found)
    rest = [ln for ln in lines if ln != vote.line]
    if vote.verb != "abstain" and vote.below and rest:
        rest = rest[1:]  # `投票` (or `我投给`) alone: its name is on the next line
    return replace(vote, others="\n".join(rest))


def _found(lines: list[str], names: tuple[str, ...], aliases: AliasesKey, table: VerbTable,
           abstain: tuple[str, ...]) -> list[VotePost]:
    return [v for i, line in enumerate(lines)
            if (v := _read_line(line, lines[i + 1] if i + 1 < len(lines) else "", names, aliases, table, abstain))]


def _name_only(lines: list[str], names: tuple[str, ...], aliases: AliasesKey) -> VotePost | None:
    if not lines:
        return None
    target = _target(lines[0].rstrip(_SEP), names, aliases)
    if target.name is None or target.reason:
        return None
    return VotePost("vote", "", lines[0], Target(target.name), others="\n".join(lines[1:]))


def _first_or_ambiguous(found: list[VotePost]) -> VotePost:
    """The first readable vote line (one with a separator after the name first); another
    such line for another player makes the post ambiguous (a chat line like `投丙的人…` does not)."""
    readable = [v for v in found if v.verb == "abstain" or v.name is not None]
    if not readable:
        return found[0]
    clean = [v for v in readable if not v.target.loose]
    chosen = (clean or readable)[0]
    change = any(v.change for v in found[:found.index(chosen) + 1])
    mine = chosen.name or "弃权"
    others = [v.name or "弃权" for v in clean if (v.name or "弃权") != mine]
    if others:
        both = [mine, others[0]]
        target = Target(None, candidates=tuple(both), error=f"这一帖有两行投票，分别投给{_list(both)}，只能投一人。")
        return replace(chosen, target=target, change=change)
    return replace(chosen, change=change)


def resolve_name(written: str, names: Iterable[str], aliases: Mapping[str, str] | None = None) -> str:
    """The player `written` starts with, for a delegation or a GM-entered vote (the rest is
    the reason); intake.Refused with why not (unknown, or both names when ambiguous)."""
    target = read_target(written, names, aliases)
    if target.name is None:
        raise Refused(target.error)
    return target.name


def unreadable(spec: RulesetSpec, out: Messages, voter: str, post_text: str, error: str) -> Refused:
    """An unreadable vote post: the GM is told (`note_vote_unreadable`: a player who never
    votes again is counted for himself or removed), the voter gets the accepted form
    (`vote_form`); the refusal to raise is returned, and nothing is recorded."""
    short = " ".join(post_text.split())
    short = short if len(short) <= 20 else short[:20] + "…"
    out.notes.append(spec.text("note_vote_unreadable", name=voter, text=short, reason=error))
    return Refused(with_form(error, spec.text("vote_form")))


def refusal(vote: VotePost, form: str = ACCEPTED_FORM) -> str:
    """Why a vote post could not be read, with the form that is accepted."""
    return with_form(vote.error, form)


def with_form(reason: str, form: str = ACCEPTED_FORM) -> str:
    return reason if form in reason else f"{reason}格式：{form}"


def quote_note(vote: VotePost | None, out: Messages, voter: str, post_text: str) -> None:
    """A vote read from the lines a quote swallowed (`_swallowed`) is counted, and the GM is
    told: if the line was in fact quoted from someone else, he voids it (admin void-vote)."""
    if vote is None or not vote.after_quote:
        return
    short = " ".join(post_text.split())
    short = short if len(short) <= 40 else short[:40] + "…"
    out.notes.append(f"{voter} 的投票读自引用块的末行（Markdown 把紧跟引用的一行并入了引用）：{short}。"
                     f"如果这一行其实是引用别人的话，请用 tianshen admin void-vote {voter} 作废。")


# ---- a post in the vote thread that is no vote (issue 23 item 10) --------------------------

NOT_READ = ("没有读出投票：没有一行以“投票”“重新投票”或“改票”开头并写出游戏者的名字，"
            "也不是只写了一个游戏者的名字。")


def hint_once(data: dict, ballot: str, voter: str) -> bool:
    """True the first time `voter` is told about a non-vote post in `ballot` (a key of one
    vote: thread and round); then False until the next vote.  Only the current vote's list
    is kept (`data["vote_hints"]`), so a player who chats in the vote thread gets one PM a
    vote, never one a post."""
    hints = data.get("vote_hints")
    if not isinstance(hints, dict) or hints.get("ballot") != ballot:
        hints = data["vote_hints"] = {"ballot": ballot, "told": []}
    if voter in hints["told"]:
        return False
    hints["told"].append(voter)
    return True


def not_a_vote(spec: RulesetSpec, data: dict, out: Messages, voter: str, ballot: str, post_text: str) -> bool:
    """A voter with no vote yet wrote a post in the vote thread with no readable vote: he is
    told once per vote what was not understood and the accepted form (without it he would
    learn only at the end that he is counted as not voting).  True when told."""
    if not hint_once(data, ballot, voter):
        return False
    short = " ".join(post_text.split())
    short = short if len(short) <= 20 else short[:20] + "…"
    out.refuse(voter, post_text, spec.text("vote_not_read", text=short, reason=NOT_READ, form=spec.text("vote_form")),
               reply_to=voter)
    return True
