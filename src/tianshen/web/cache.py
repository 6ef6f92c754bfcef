"""What the web layer keeps between requests (issue 25 item 10): each ruleset, loaded again
only when its variant file changes, and public pages for a second."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from tianshen.core.ruleset import Ruleset
from tianshen.rules import load_ruleset
from tianshen.specs import spec_path

RECHECK_S = 2.0  # how often a variant file's mtime and size are looked at again


class Rulesets:
    """`load_ruleset(variant)` once per version (mtime, size) of the variant's file; the file is
    looked at again at most every RECHECK_S seconds.  A ruleset holds no game state, so one
    object serves every request."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self.known: dict[str, tuple[float, tuple[int, int], Ruleset]] = {}  # variant -> (checked, version, it)
        self.lock = threading.Lock()

    def get(self, variant: str) -> Ruleset:
        """The ruleset; KeyError or ValueError as load_ruleset for an unknown variant."""
        known = self.known.get(variant)
        if known is not None and self.now() - known[0] < RECHECK_S:
            return known[2]
        stat = spec_path(variant).stat()
        version = (stat.st_mtime_ns, stat.st_size)
        ruleset = known[2] if known is not None and known[1] == version else load_ruleset(variant)
        with self.lock:
            self.known[variant] = (self.now(), version, ruleset)
        return ruleset

    def versions(self) -> tuple[tuple[str, tuple[int, int]], ...]:
        """Which version of each variant is loaded (a page made from an older one is stale)."""
        return tuple(sorted((variant, known[1]) for variant, known in list(self.known.items())))

    def title(self, variant: str) -> str:
        """The variant's title; its id when it cannot be loaded."""
        try:
            return self.get(variant).spec.title
        except (KeyError, ValueError, OSError):
            return variant


class PageCache:
    """Rendered public pages for `ttl_s` seconds, by path: a page is at most that stale, and
    many viewers polling one game cost one render a second.  Never used for the GM pages."""

    def __init__(self, ttl_s: float = 1.0, size: int = 2000, now: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s, self.size, self.now = ttl_s, size, now
        self.pages: OrderedDict[Any, tuple[float, Any]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any) -> Any:
        """The value kept for `key` if it is fresh; None otherwise."""
        hit = self.pages.get(key)
        return hit[1] if hit is not None and hit[0] > self.now() else None

    def put(self, key: Any, value: Any) -> Any:
        if self.ttl_s > 0:
            with self.lock:
                self.pages[key] = (self.now() + self.ttl_s, value)
                self.pages.move_to_end(key)
                while len(self.pages) > self.size:
                    self.pages.popitem(last=False)
        return value


class GameViews:
    """Each game's rendered public page (and fragment), kept until the game changes (issue 38,
    fast under many games): `signature` is what a request reads of the game (its newest
    event's seq, what its outbox sent, the rehearsal clock's mark), so a request whose game
    did not change renders nothing and folds nothing.  The least recently asked game goes
    first when `size` views are kept."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self.views: OrderedDict[Any, tuple[Any, Any]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Any, signature: Any) -> Any:
        """The view kept for `key` if it was made at `signature`; None otherwise."""
        hit = self.views.get(key)
        if hit is None or hit[0] != signature:
            return None
        with self.lock:
            if key in self.views:
                self.views.move_to_end(key)
        return hit[1]

    def put(self, key: Any, signature: Any, value: Any) -> Any:
        with self.lock:
            self.views[key] = (signature, value)
            self.views.move_to_end(key)
            while len(self.views) > self.size:
                self.views.popitem(last=False)
        return value
