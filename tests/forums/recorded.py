"""What the recorded-board fixtures (`discuz_fixtures`, `phpwind_fixtures`) share: routes that
match a request on its path and a subset of its query and form fields (the most specific route
wins, later ones win ties; a route serving a list serves it in turn and then keeps serving the
last), and a fake sleep/monotonic clock."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import httpx

Serve = str | bytes | Callable[[httpx.Request], httpx.Response]


@dataclass
class Route:
    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]
    serve: list[Serve]
    order: int
    hits: int = 0

    def matches(self, request: httpx.Request, form: dict[str, str]) -> bool:
        if request.method != self.method or request.url.path.lstrip("/") != self.path:
            return False
        q = dict(request.url.params.multi_items())
        return all(q.get(k) == v for k, v in self.query.items()) and all(form.get(k) == v for k, v in self.form.items())

    def next(self) -> Serve:
        item = self.serve[min(self.hits, len(self.serve) - 1)]
        self.hits += 1
        return item


class Routed:
    """A mixin for a recorded board with `routes` and `handle`."""

    routes: list[Route]

    def handle(self, request: httpx.Request) -> httpx.Response:
        raise NotImplementedError

    def on(self, method: str, path: str, serve: Serve | list[Serve], form: dict[str, str] | None = None,
           **query: str | int) -> Route:
        route = Route(method, path, {k: str(v) for k, v in query.items()}, form or {},
                      serve if isinstance(serve, list) else [serve], len(self.routes))
        self.routes.append(route)
        return route

    def route(self, request: httpx.Request, form: dict[str, str]) -> Route | None:
        """The route that serves the request: the most specific, the later of equals."""
        candidates = [r for r in self.routes if r.matches(request, form)]
        if not candidates:
            return None
        return max(candidates, key=lambda r: (len(r.query) + len(r.form), r.order))

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)


class Sleeps:
    """An injectable `sleep` that records and advances a fake monotonic clock."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.calls: list[float] = []

    def sleep(self, s: float) -> None:
        self.calls.append(s)
        self.t += s

    def monotonic(self) -> float:
        return self.t
