"""The PM command grammar shared by every ruleset.

A PM holds one or more commands, one per line (or separated by ；/;).  A command is a verb
(any of its aliases) followed by its argument, with or without a separator: `杀 丙`,
`束魂：丙`, `占卜丙`, `投票, 丙`.  Full-width and half-width punctuation and spaces are the
same.  A kill's declaration (杀人宣言) is the rest of the PM after the kill line, or a PM of
its own starting with `宣言`; a story (剧情) of any length starts with `剧情`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

# the verbs every family shares, canonical verb -> aliases as players write them (longest alias
# wins when parsing); a family adds its abilities' words (core.abilities, its TOML)
VERBS: dict[str, tuple[str, ...]] = {
    # as core.vote_post (issue 17; 重新投票: issue 23 item 10): a vote by PM is told where to post it
    "vote": ("重新投票", "重新投", "投票", "投", "改票", "改投", "票投", "vote"),
    "delegate": ("委托投票", "委托", "代投"),
    "declaration": ("宣言", "杀人宣言"),
    "story": ("剧情", "杀人剧情"),
    "accuse": ("指控", "/accuse"),
    "cancel": ("取消", "撤销", "/cancel"),
    "done": ("/done", "完成"),
    "count": ("票数", "计票", "/count"),
}
# verbs whose text runs to the end of the PM
TEXT_VERBS = {"declaration", "story"}
# verbs that take no argument
BARE_VERBS = {"done", "count"}
# attacks whose declaration (杀人宣言) may follow on the next lines of the PM (a ruleset with
# other attack verbs passes its own set: n_lives)
DECLARING_VERBS = frozenset({"kill"})

Verbs = dict[str, tuple[str, ...]]
# a verb table compiled for _verb_at: first character of the lowered alias -> (lowered alias,
# its length as written, verb), longest first; "" holds an empty alias (it matches any line)
Aliases = dict[str, tuple[tuple[str, int, str], ...]]
VerbsKey = tuple[tuple[str, tuple[str, ...]], ...]  # a verb table as a cache key
Row = tuple[str, str, str, str]  # a Command's fields, as cached


def _aliases(verbs: Verbs) -> Aliases:
    ordered = sorted(((a, v) for v, al in verbs.items() for a in al), key=lambda x: -len(x[0]))
    table: dict[str, list[tuple[str, int, str]]] = {}
    for alias, verb in ordered:
        low = alias.lower()
        table.setdefault(low[:1], []).append((low, len(alias), verb))
    return {first: tuple(entries) for first, entries in table.items()}


@lru_cache(maxsize=64)
def _compiled(key: VerbsKey) -> Aliases:
    return _aliases(dict(key))


class _Key(tuple):  # type: ignore[type-arg]
    """A verb table as a cache key that is hashed once: a tuple hashes every alias again at
    each look-up of the parse cache (issue 37: once a PM)."""

    def __new__(cls, items: VerbsKey) -> _Key:
        key = super().__new__(cls, items)
        key._hash = tuple.__hash__(key)
        return key

    def __hash__(self) -> int:
        return self._hash  # type: ignore[no-any-return]


_KEYS: dict[int, tuple[dict[str, tuple[str, ...]], VerbsKey]] = {}


class VerbTable(dict):  # type: ignore[type-arg]
    """A verb table that cannot be changed (a ruleset's `pm_verbs`): its key is made once,
    with it, and read at every PM without comparing the table to a copy (issue 37)."""

    def __init__(self, verbs: Verbs) -> None:
        super().__init__((v, tuple(al)) for v, al in verbs.items())
        self.key = _Key(tuple(self.items()))
        # (text, declaring) -> `parsed_rows`' answer: the table cannot change, so neither can
        # its readings (looked up by two hashes kept in C, not the parse cache's key)
        self.rows: dict[tuple[str, frozenset[str]], tuple[tuple[Row, ...], tuple[str, ...]]] = {}

    def __reduce__(self) -> tuple[type[VerbTable], tuple[dict[str, tuple[str, ...]]]]:
        return VerbTable, (dict(self),)  # (a copy or a pickle is made anew, not item by item)

    def _read_only(self, *args: object, **kwargs: object) -> None:
        raise TypeError("a ruleset's verb table is read only: make a new one (VerbTable(table | {...}))")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = __ior__ = _read_only  # type: ignore[assignment]


def _verbs_key(verbs: Verbs) -> VerbsKey:
    """The table as a hashable key: a `VerbTable`'s own.  Another table of tuples is
    remembered with a copy of it: the key is reused while the table still equals the copy
    (a dict comparison, its tuples compared by identity first), so a table changed in
    place is read by its new words."""
    if type(verbs) is VerbTable:
        return verbs.key
    known = _KEYS.get(id(verbs))
    if known is not None and known[0] == verbs:
        return known[1]
    key = _Key(tuple((v, tuple(al)) for v, al in verbs.items()))
    if all(type(al) is tuple for al in verbs.values()):
        if len(_KEYS) >= 64:
            _KEYS.clear()
        _KEYS[id(verbs)] = (dict(verbs), key)  # type: ignore[arg-type]
    return key


_ALIASES = _aliases(VERBS)
_SEPARATORS = " \t:：,，、.。;；-—=＝>"
_SPLIT = re.compile(r"[;；]")

@dataclass(slots=True)  # (one made for every command a PM runs: no instance dict)
class Command:
    verb: str
    arg: str  # the raw argument (a name, or for cancel a verb word); "" if none
    text: str = ""  # declaration / story body (for kill: the lines after the command)
    line: str = ""


@dataclass
class ParsedPm:
    commands: list[Command] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # lines that are not commands


# the ideographic space and the full-width forms U+FF01..U+FF5E (but ：，；（）) made half-width
_HALF_WIDTH = {0x3000: " "} | {
    c: unicodedata.normalize("NFKC", chr(c)) for c in range(0xFF01, 0xFF5F) if chr(c) not in "：，；（）"
}


def normalize(text: str) -> str:
    """Half-width punctuation and spaces; keeps CJK characters unchanged."""
    return text.translate(_HALF_WIDTH).replace("\r\n", "\n").replace("\r", "\n")


def _verb_at(line: str, aliases: Aliases = _ALIASES) -> tuple[str, str] | None:
    """(verb, rest) if the line starts with a verb alias."""
    low = line.lower()
    for alias, length, verb in aliases.get(low[:1], ()):
        if low.startswith(alias):
            return verb, line[length:]
    for _, length, verb in aliases.get("", ()):
        return verb, line[length:]
    return None


def parse_pm(text: str, verbs: Verbs | None = None, declaring: frozenset[str] = DECLARING_VERBS) -> ParsedPm:
    """The commands of a PM.  `verbs` replaces the shared table for a ruleset with its own
    words (e.g. `VERBS | {"hug": ("抱",)}`); TEXT_VERBS and BARE_VERBS keep their meaning;
    `declaring` are the verbs followed by a declaration on the next lines."""
    commands, unknown = parsed_rows(text, verbs, declaring)
    return ParsedPm([Command(*c) for c in commands], list(unknown))


def parsed_rows(text: str, verbs: Verbs | None = None,
                declaring: frozenset[str] = DECLARING_VERBS) -> tuple[tuple[Row, ...], tuple[str, ...]]:
    """`parse_pm` as the parser keeps it: each command's fields (`Command(*row)`) and the
    lines that are not commands, shared by every reader (core.intake makes each `Command`
    it runs: a PM is read once, ~1 µs less than a `ParsedPm` of copies)."""
    declaring = declaring if type(declaring) is frozenset else frozenset(declaring)
    if type(verbs) is VerbTable:  # (a ruleset's own table: every PM)
        rows = verbs.rows
        found = rows.get((text, declaring))
        if found is None:
            if len(rows) >= 4096:
                rows.clear()
            found = rows[text, declaring] = _parsed(text, verbs.key, declaring)
        return found
    return _parsed(text, None if verbs is None else _verbs_key(verbs), declaring)


@lru_cache(maxsize=4096)
def _parsed(text: str, verbs: VerbsKey | None, declaring: frozenset[str]) -> tuple[tuple[Row, ...], tuple[str, ...]]:
    """parse_pm as tuples (a PM read once is read the same again: the cache hands out copies)."""
    result = _parse(text, _ALIASES if verbs is None else _compiled(verbs), declaring)
    return tuple((c.verb, c.arg, c.text, c.line) for c in result.commands), tuple(result.unknown)


def _parse(text: str, aliases: Aliases, declaring: frozenset[str]) -> ParsedPm:
    lines = normalize(text).split("\n")
    result = ParsedPm()
    i = 0
    while i < len(lines):
        raw = lines[i].strip()
        i += 1
        if not raw:
            continue
        hit = _verb_at(raw, aliases)
        if hit and hit[0] in TEXT_VERBS:
            body = "\n".join([hit[1].lstrip(_SEPARATORS)] + lines[i:]).strip()
            result.commands.append(Command(hit[0], "", body, raw))
            break
        parts = [p.strip() for p in _SPLIT.split(raw)] if hit and hit[0] not in declaring else [raw]
        for part in parts:
            cmd = _command(part, aliases)
            if cmd is None:
                result.unknown.append(part)
                continue
            result.commands.append(cmd)
        if result.commands and result.commands[-1].verb in declaring and i < len(lines):
            # 002 杀人宣言: the declaration follows the kill on the next lines, up to the next
            # attack (000: several attacks in one PM, each with its own declaration)
            end = next((j for j in range(i, len(lines)) if _starts_attack(lines[j], aliases, declaring)), len(lines))
            result.commands[-1].text = "\n".join(lines[i:end]).strip()
            i = end
    return result


def _starts_attack(line: str, aliases: Aliases, declaring: frozenset[str]) -> bool:
    """A line that is itself an attack command (a short argument: a name, maybe a position),
    not a line of prose that happens to begin with 杀."""
    cmd = _command(line.strip(), aliases)
    return cmd is not None and cmd.verb in declaring and 0 < len(cmd.arg) <= MAX_ATTACK_ARG


MAX_ATTACK_ARG = 16


def _command(part: str, aliases: Aliases) -> Command | None:
    hit = _verb_at(part, aliases)
    if not hit:
        return None
    verb, rest = hit
    arg = rest.strip().lstrip(_SEPARATORS).strip()
    if verb in BARE_VERBS:
        return Command(verb, "", "", part) if not arg else None
    return Command(verb, arg, "", part)


def count_declaration_chars(text: str) -> int:
    """DECISIONS §0.4: Unicode code points that are not whitespace, punctuation included."""
    return len("".join(text.split()))  # str.split() splits on exactly the str.isspace() characters
