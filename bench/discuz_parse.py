"""Benchmark: a 500-post Discuz vote thread parsed by the BeautifulSoup parser (frozen copy,
`bench/_discuz_parse_bs4.py`) and by today's `tianshen.forum.discuz.parse`, in the same run.
Prints CPU seconds (`time.process_time`) per parse; asserts nothing but says whether both
gave the same posts.

    .venv/bin/python bench/discuz_parse.py [posts] [repeats]

The 500-post pages are made from the recorded boards (`shared/forums/discuz-*`): the post
blocks of `html-viewthread-tid1-page1.html` repeated with new pids and floors, in the page's
own bytes (GBK stays GBK, decoded as the service decodes it), and the mobile API's
`viewthread` answer with its `postlist` repeated the same way.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import sys
import time
from collections.abc import Callable
from datetime import timedelta, timezone
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from tianshen.forum.discuz import parse

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("TIANSHEN_FORUM_RECORDINGS", HERE.parents[1] / "shared" / "forums"))
BOARDS = {"x3.5": (ROOT / "discuz-x3.5" / "pages", "utf-8"), "x3.4": (ROOT / "discuz-x3.4-gbk" / "pages", "gbk")}
CST = timezone(timedelta(hours=8))
FLOOR_NAMES = {1: "楼主", 2: "沙发", 3: "板凳", 4: "地板"}


def old_parser() -> ModuleType:
    """The frozen BeautifulSoup parser, loaded from its file (bench/ is no package)."""
    spec = importlib.util.spec_from_file_location("_discuz_parse_bs4", HERE / "_discuz_parse_bs4.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("_discuz_parse_bs4", module)
    spec.loader.exec_module(module)
    return module


# ---- synthetic threads -------------------------------------------------------------------------

_POST_START = re.compile(rb'<div id="post_(\d+)" >')
_POSTLIST_END = b'<div id="postlistreply"'


def _renumber(old: int, block: bytes, new: int, charset: str) -> bytes:
    """A recorded post block as post `new` (pid and floor): the ids that name the pid, and the
    floor link's label (`楼主` … `地板`, then `<em>N</em><sup>#</sup>`)."""
    ids = re.compile(rb'((?:id|summary)="[A-Za-z_]*)' + str(old).encode() + rb'(?=["_])')
    block = ids.sub(lambda m: m.group(1) + str(new).encode(), block)
    label = FLOOR_NAMES[new].encode(charset) if new in FLOOR_NAMES else f"<em>{new}</em><sup>#</sup>".encode()
    return re.sub(rb'(id="postnum' + str(new).encode() + rb'"[^>]*>)(.*?)(</a>)',
                  lambda m: m.group(1) + b"\n" + label + m.group(3), block, count=1, flags=re.S)


def synthetic_thread(version: str, posts: int = 500, first: int = 1) -> bytes:
    """The bytes of a thread page holding `posts` posts from floor (and pid) `first` on: the
    recorded page 1 of tid 1 with its post blocks repeated in turn (the edited posts and the
    quote come round again)."""
    folder, charset = BOARDS[version]
    raw = (folder / "html-viewthread-tid1-page1.html").read_bytes()
    starts = [m for m in _POST_START.finditer(raw)]
    end = raw.index(_POSTLIST_END)
    head, tail = raw[:starts[0].start()], raw[end:]
    blocks = [(int(m.group(1)), raw[m.start():(starts[i + 1].start() if i + 1 < len(starts) else end)])
              for i, m in enumerate(starts)]
    body = [_renumber(*blocks[i % len(blocks)], first + i, charset) for i in range(posts)]
    return head + b"".join(body) + tail


def synthetic_api_thread(version: str, posts: int = 500) -> dict[str, Any]:
    """The `Variables` of a mobile-API `viewthread` answer holding `posts` posts (pid and
    position renumbered), from the recorded one with the most posts."""
    folder, _ = BOARDS[version]
    name = "api-viewthread-tid1-ppp20.json" if (folder / "api-viewthread-tid1-ppp20.json").exists() \
        else "api-viewthread-tid1-page1.json"
    variables = json.loads((folder / name).read_bytes())["Variables"]
    recorded = variables["postlist"]
    postlist = []
    for i in range(posts):
        p = dict(recorded[i % len(recorded)])
        p["pid"], p["position"], p["number"] = str(i + 1), str(i + 1), str(i + 1)
        postlist.append(p)
    variables = dict(variables, postlist=postlist, ppp=str(posts), page="1")
    variables["thread"] = dict(variables.get("thread") or {}, maxposition=str(posts), replies=str(posts - 1))
    return variables


def plain(value: Any) -> Any:
    """`value` with every dataclass made a (class name, fields) pair, so that the results of
    the two parsers (two modules, two sets of classes) compare."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return type(value).__name__, {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list | tuple):
        return type(value)(plain(v) for v in value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


# ---- timing ------------------------------------------------------------------------------------


def cpu(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The least CPU time of `repeats` runs of `fn`, and what it gave."""
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.process_time()
        result = fn()
        best = min(best, time.process_time() - t0)
    return best, result


def compare(label: str, old: Callable[[], Any], new: Callable[[], Any], repeats: int, posts: int) -> None:
    t_old, r_old = cpu(old, max(1, repeats // 3))
    t_new, r_new = cpu(new, repeats)
    same = plain(r_old) == plain(r_new) and len(r_new.posts) == posts
    print(f"{label:<22} {t_old:>8.3f} {t_new:>8.3f} {t_old / t_new:>8.1f}x  {same}")


def board(version: str, old: ModuleType, posts: int, repeats: int) -> None:
    charset = BOARDS[version][1]
    raw = synthetic_thread(version, posts)
    text = parse.decode(raw, charset)
    compare(f"{version} html page", partial(old.thread_page, text, CST), partial(parse.thread_page, text, CST),
            repeats, posts)
    compare(f"{version} html bytes+decode", lambda: old.thread_page(parse.decode(raw, charset), CST),
            lambda: parse.thread_page(parse.decode(raw, charset), CST), repeats, posts)
    paged = [synthetic_thread(version, 10, first) for first in range(1, posts + 1, 10)]

    def recount(module: ModuleType) -> Any:  # what the adapter does with each page it fetches
        pages = []
        for page in paged:
            text = parse.decode(page, charset)
            module.read_answer(text)
            pages.append(module.thread_page(text, CST))
        return module.ThreadPage([p for tp in pages for p in tp.posts], 1, 1)

    compare(f"{version} html {len(paged)} pages", partial(recount, old), partial(recount, parse), repeats, posts)
    variables = synthetic_api_thread(version, posts)
    compare(f"{version} api json", partial(old.api_thread, variables), partial(parse.api_thread, variables),
            repeats, posts)


RECORDED = (  # board, page, reader: the other pages the adapter polls
    ("x3.5", "html-pm-list.html", "pm_list"), ("x3.4", "html-pm-list-newpm.html", "pm_list"),
    ("x3.5", "html-pm-view-touid2.html", "pm_view"), ("x3.4", "html-pm-view-touid3-player1.html", "pm_view"),
    ("x3.5", "html-forumdisplay-fid3.html", "forum_threads"), ("x3.4", "html-forumdisplay-fid36.html", "forum_threads"),
)


def recorded_page(version: str, name: str, reader: str, old: ModuleType, repeats: int) -> None:
    folder, charset = BOARDS[version]
    text = parse.decode((folder / name).read_bytes(), charset)

    def read(module: ModuleType) -> Any:
        if reader == "pm_view":
            return module.pm_view(text, CST, 0, "mafiagm")
        if reader == "forum_threads":
            return module.forum_threads(text, CST)
        return module.pm_list(text)

    t_old, r_old = cpu(partial(read, old), repeats)
    t_new, r_new = cpu(partial(read, parse), repeats)
    same = plain(r_old) == plain(r_new)
    print(f"{version + ' ' + name:<44} {t_old * 1000:>8.1f} {t_new * 1000:>8.1f} {t_old / t_new:>8.1f}x  {same}")


def main(posts: int, repeats: int) -> None:
    old = old_parser()
    print(f"{posts}-post Discuz thread: CPU s per parse (best of {repeats}, old best of {max(1, repeats // 3)});")
    print("old = BeautifulSoup (bench/_discuz_parse_bs4.py), new = tianshen.forum.discuz.parse")
    print(f"{'board / form':<22} {'old s':>8} {'new s':>8} {'speed-up':>9}  same")
    for version in BOARDS:
        board(version, old, posts, repeats)
    print()
    print(f"recorded pages, CPU ms per parse (best of {repeats})")
    print(f"{'board / page':<44} {'old ms':>8} {'new ms':>8} {'speed-up':>9}  same")
    for version, name, reader in RECORDED:
        recorded_page(version, name, reader, old, repeats)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500, int(sys.argv[2]) if len(sys.argv) > 2 else 5)
