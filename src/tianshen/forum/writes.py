"""What the Discuz and PHPWind adapters share about writing and their HTTP sessions.

- `LostAnswer`: a write whose answer never came.
- `Reply`: one HTTP answer with the board's parsed `answer`.
- `SpacedWriter`: the forum side's exactly-once bookkeeping (`_done`/`_uncertain`, a send
  whose answer was lost is looked up on the board before it is repeated), the sends spaced
  by `forum.pacing` with a flood refusal retried and a too-short post padded once, and the
  login guard before a write.  Each board keeps its own texts (`flood_advice`) and its own
  look-back (`_look_back`).
- `GuardedLogin`: the client side's login that remembers a refusal (`LoginGuard`), and the
  one re-login when an answer shows the GM logged out.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import httpx

from tianshen.forum.base import ForumError, LoginRefused, look_back_from
from tianshen.forum.pacing import Pacer
from tianshen.forum.session import LoginGuard

log = logging.getLogger(__name__)


class LostAnswer(ForumError):
    """A write whose answer never came: the board may or may not have done it."""


@dataclass
class Reply:
    status: int
    text: str
    answer: Any  # the board's own `parse.Answer`
    headers: httpx.Headers


class Outcome(Protocol):
    kind: str  # "ok", "flood", "short" (a board may have more)
    value: Any
    wait_s: float
    need: int


class _Client(Protocol):
    guard: LoginGuard
    logged_in: bool

    def login(self) -> None: ...


class SpacedWriter:
    """A mixin for a forum adapter with `client`, `pacer`, `flood_retries`, `min_post_chars`,
    `_done`, `_uncertain` and `now()`."""

    client: _Client
    pacer: Pacer
    flood_retries: int
    min_post_chars: int | None
    _done: dict[str, Any]
    _uncertain: dict[str, datetime]
    flood_advice = "lower the board's flood control for the GM's group"  # the end of the give-up error

    def now(self) -> datetime:
        raise NotImplementedError

    def _ensure(self) -> None:
        """Logged in, or a `LoginRefused` at once (no request) when the login was refused."""
        guard = self.client.guard
        guard.check()
        if not self.client.logged_in:
            if guard.good_logins:  # the session ended after a good login: renew it, with backoff
                guard.allow_relogin()
            self.client.login()

    def _look_back(self, since: datetime) -> datetime:
        """Where the look-up for a write first tried at `since` starts."""
        return look_back_from(since)

    def _write(self, key: str, send: Callable[[], Any], find: Callable[[datetime], Any]) -> Any:
        if key in self._done:
            return self._done[key]
        since = self._uncertain.get(key)  # only a try of this process whose answer was lost
        if since is not None:
            found = find(self._look_back(since))
            if found is not None:
                log.info("%s is already on the board; not sending it again", key)
                self._done[key] = found
                self._uncertain.pop(key, None)
                return found
        attempt = self.now()
        try:
            result = self._send_spaced(send)
        except LostAnswer:
            self._uncertain[key] = attempt
            found = find(self._look_back(attempt))
            if found is not None:
                self._done[key] = found
                self._uncertain.pop(key, None)
                return found
            raise
        self._done[key] = result
        self._uncertain.pop(key, None)
        return result

    def _send_spaced(self, send: Callable[[], Outcome]) -> Any:
        """Send when due (`forum.pacing`); a flood refusal means send again when due, not sleep
        on top of the interval."""
        padded = False
        for attempt in range(self.flood_retries + 1):
            self.pacer.wait_turn()
            outcome = send()
            if outcome.kind == "ok":
                self.pacer.accepted()
                return outcome.value
            if outcome.kind == "short" and not padded:
                padded = True
                self.min_post_chars = outcome.need
                continue
            if outcome.kind == "flood":
                self.pacer.refused(named_s=outcome.wait_s or None)
                log.info("flood control on the board (try %d); interval %.0f s", attempt + 1, self.pacer.interval_s)
                continue
            raise ForumError("the board refused the post as too short even after padding")
        raise ForumError(f"the board's flood control refused {self.flood_retries + 1} tries; {self.flood_advice}")

    def _pad(self, text: str) -> str:
        need = self.min_post_chars or 0
        if len(text.strip()) >= need:
            return text
        return text + "\u3000" * (need - len(text.strip()) + 1)


class GuardedLogin:
    """A mixin for a client with `guard`, `logged_in`, `_relogging` and `_login()`."""

    guard: LoginGuard
    logged_in: bool
    _relogging: bool

    def _login(self) -> None:
        raise NotImplementedError

    def login(self) -> None:
        """Log in; a refusal is remembered: every later call raises it again, with no request."""
        self.guard.check()
        try:
            self._login()
        except LoginRefused as exc:
            self.guard.note_refused(exc)
            raise
        self.guard.note_ok()

    def _relogin_once(self, action: Callable[[], Reply], logged_out: Callable[[Reply], bool]) -> Reply:
        """`action`; when its answer shows the GM logged out, log in again once and repeat it."""
        reply = action()
        if self.logged_in and not self._relogging and logged_out(reply):
            log.warning("the board treats the GM as logged out; logging in again")
            self.logged_in = False
            self.guard.allow_relogin()
            self.login()
            reply = action()
            if logged_out(reply):
                raise ForumError("the board still treats the GM as logged out right after a fresh login "
                                 "(are cookies blocked, or is the account banned?)")
        return reply
