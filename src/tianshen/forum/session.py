"""When an adapter may log in: once at start, again only after a clean session expiry.

A forum that refused the GM's password (or locked the address out, or demands a captcha)
will refuse it again, and every failure counts towards an IP lockout (Discuz: 5 in 15
minutes locks every account on the host).  So a refusal is remembered for the life of the
process: every later call raises the same `LoginRefused` at once, with no request.  A
session that ends after a good login is renewed at most once per backoff period (60 s,
doubling up to 15 minutes while it keeps ending), so one call never logs in twice.
"""

from __future__ import annotations

from collections.abc import Callable

from tianshen.forum.base import ForumError, LoginRefused


class LoginGuard:
    def __init__(self, monotonic: Callable[[], float], first_backoff_s: float = 60.0,
                 max_backoff_s: float = 900.0) -> None:
        self.monotonic = monotonic
        self.first_backoff_s = first_backoff_s
        self.max_backoff_s = max_backoff_s
        self.refused: LoginRefused | None = None
        self.good_logins = 0
        self._backoff_s = first_backoff_s
        self._last_relogin: float | None = None

    def check(self) -> None:
        """Raise the remembered refusal, if there is one."""
        if self.refused is not None:
            raise LoginRefused(str(self.refused))

    def note_refused(self, exc: LoginRefused) -> None:
        self.refused = exc

    def note_ok(self) -> None:
        self.good_logins += 1

    def allow_relogin(self) -> None:
        """May the adapter log in again now, its session having ended?  Raises when not."""
        self.check()
        now = self.monotonic()
        if self._last_relogin is not None:
            waited = now - self._last_relogin
            if waited < self._backoff_s:
                raise ForumError(f"the forum ended the GM's session again {waited:.0f} s after a fresh login; "
                                 f"not logging in again for {self._backoff_s - waited:.0f} s")
            self._backoff_s = min(self.max_backoff_s, self._backoff_s * 2) if waited < 4 * self._backoff_s \
                else self.first_backoff_s
        self._last_relogin = now
