"""The GM pages' login: the token is checked once (the login form's POST, or a Bearer header),
and the browser keeps a signed session with an expiry, never the token itself (issue 25
item 15).  Failed tries are throttled per client (item 16)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from itsdangerous import BadSignature, URLSafeTimedSerializer

MIN_TOKEN = 16
SALT = b"tianshen-web-session"


def check_token(token: str | None) -> None:
    """ValueError (one line) for a configured token too short to stand guessing."""
    if token is not None and len(token) < MIN_TOKEN:
        raise ValueError(f"[web] token is {len(token)} characters long; it must have at least {MIN_TOKEN} "
                         f"(e.g. python -c 'import secrets; print(secrets.token_urlsafe(24))')")


def session_key(token: str, secret: str | None = None) -> bytes:
    """The key that signs sessions: the configured session secret, else one derived from the
    token by scrypt (the cookie never holds the token, and the signature does not give it away)."""
    if secret:
        return hashlib.sha256(SALT + secret.encode()).digest()
    return hashlib.scrypt(token.encode(), salt=SALT, n=2**14, r=8, p=1, dklen=32)


def same_token(given: str, token: str | None) -> bool:
    return token is not None and secrets.compare_digest(given.encode(), token.encode())


class Revoked(Protocol):
    """Where logouts are kept (the database: they survive a restart of `tianshen web`)."""

    def revoke_session(self, sid: str, expires_at: datetime) -> None: ...

    def is_revoked(self, sid: str) -> bool: ...


class Sessions:
    """Signed, expiring session cookies: {"sid": random, "v": which token}; a logout revokes
    the sid until it would have expired anyway (in `kept` when given, so a restart does not
    bring the login back; issue 38 item 8)."""

    def __init__(self, token: str, secret: str | None, max_age_s: int, kept: Revoked | None = None) -> None:
        key = session_key(token, secret)
        self.max_age_s = max_age_s
        self.signer = URLSafeTimedSerializer(key, salt="gm-session")
        self.version = hmac.new(key, token.encode(), hashlib.sha256).hexdigest()[:16]
        self.revoked: dict[str, float] = {}  # sid -> when it expires anyway
        self.kept = kept

    def new(self) -> str:
        return self.signer.dumps({"sid": secrets.token_urlsafe(16), "v": self.version})

    def sid(self, cookie: str) -> str | None:
        """The session id of a valid, unexpired, not revoked cookie; None otherwise."""
        try:
            data = self.signer.loads(cookie, max_age=self.max_age_s)
        except (BadSignature, ValueError, TypeError):
            return None
        if not isinstance(data, dict) or data.get("v") != self.version:
            return None
        sid = data.get("sid")
        if not isinstance(sid, str) or sid in self.revoked:
            return None
        return None if self.kept is not None and self.kept.is_revoked(sid) else sid

    def revoke(self, cookie: str) -> None:
        sid = self.sid(cookie)
        now = time.time()
        self.revoked = {s: t for s, t in self.revoked.items() if t > now}
        if sid is not None:
            self.revoked[sid] = now + self.max_age_s
            if self.kept is not None:
                self.kept.revoke_session(sid, datetime.fromtimestamp(now + self.max_age_s, UTC))


@dataclass
class Throttle:
    """At most `tries` failed logins per client within `window_s` seconds; then the client
    waits until the oldest of them is that old (a right token is refused meanwhile too)."""

    tries: int = 5
    window_s: float = 60.0
    now: Callable[[], float] = time.monotonic
    max_clients: int = 10_000
    failures: dict[str, deque[float]] = field(default_factory=dict)

    def wait(self, client: str) -> float:
        """Seconds the client must wait before the next try (0: it may try now)."""
        seen = self._recent(client)
        if len(seen) < self.tries:
            return 0.0
        return max(0.0, seen[0] + self.window_s - self.now())

    def failed(self, client: str) -> None:
        if client not in self.failures and len(self.failures) >= self.max_clients:
            self._forget_old()
        self.failures.setdefault(client, deque(maxlen=self.tries)).append(self.now())

    def _recent(self, client: str) -> deque[float]:
        seen = self.failures.get(client) or deque()
        while seen and seen[0] + self.window_s <= self.now():
            seen.popleft()
        return seen

    def _forget_old(self) -> None:
        for client in [c for c in self.failures if not self._recent(c)]:
            del self.failures[client]
        while len(self.failures) >= self.max_clients:  # still full: the oldest client goes
            del self.failures[next(iter(self.failures))]
