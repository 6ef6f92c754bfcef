"""`tianshen admin export`: the whole log of a game, as JSON and as a readable report."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from tianshen.core.clock import DEFAULT_ZONE, show
from tianshen.core.model import GameState
from tianshen.core.ruleset import gm_args
from tianshen.store import Store


def export_game(store: Store, game_id: int) -> dict[str, Any]:
    record = store.load_game(game_id)
    state = GameState.model_validate_json(record.state_json)
    return {
        "game": record.name,
        "ruleset": record.ruleset,
        "seed": record.seed,
        "status": record.status,
        "winner": record.winner,
        "players": [p.model_dump(mode="json") for p in state.players],
        "phases": [{"phase": p.label, "started_at": _iso(p.started_at), "ended_at": _iso(p.ended_at)}
                   for p in store.phases(game_id)],
        "events": [{"seq": e.seq, "kind": e.kind, "phase": e.phase_label, "input": json.loads(e.payload_json)}
                   for e in store.events(game_id)],
        "outbox": [{"seq": o.seq, "event": _event_of(o.key, record.name), "kind": o.kind, "target": o.target,
                    "title": o.title, "subject": o.subject, "body": o.body, "status": o.status,
                    "sent_at": _iso(o.sent_at)} for o in store.outbox(game_id)],
        "gm_log": state.data.get("gm_log", []),
        "state": state.model_dump(mode="json"),
    }


def report(data: dict[str, Any]) -> str:
    """The same log for people: who was who, then each phase's inputs and what the GM said."""
    zone = data["state"].get("zone") or DEFAULT_ZONE  # the report's times, as the game showed them
    lines = [f"# {data['game']} — {data['ruleset']}, seed {data['seed']}, {data['status']}",
             f"winner: {data['winner'] or '—'}", "", "## Players", ""]
    for p in data["players"]:
        fate = "alive" if p["alive"] else f"died {p['died_in']} ({p['death_cause']})"
        lines.append(f"- {p['seat']}. {p['name']} ({p['forum_name']}): {p['role']}, {p['faction']}, {fate}")
    outputs: dict[int, list[dict[str, Any]]] = {}
    for item in data["outbox"]:
        outputs.setdefault(item["event"] or 0, []).append(item)
    phase = None
    for event in data["events"]:
        if event["phase"] != phase:
            phase = event["phase"]
            lines += ["", f"## {phase}", ""]
        lines.append(_describe(event, zone))
        for item in outputs.get(event["seq"], []):
            where = f"PM → {item['target']}" if item["kind"] == "pm" else f"post in {item['target']}"
            body = item["body"].replace("\n", "\n      ")
            lines.append(f"    {where} [{item['status']}]:\n      {body}")
    return "\n".join(lines) + "\n"


def _describe(event: dict[str, Any], zone: str) -> str:
    i = event["input"]
    kind = event["kind"]
    if kind == "setup":
        return f"- setup: {len(i['seats'])} seats, seed {i['seed']}, start {_when(i['start'], zone)}"
    at = _when(i["at"], zone)
    if kind == "pm":
        return f"- {at} PM from {i['sender']}: {i['text']!r}"
    if kind == "post":
        return f"- {at} post by {i['author']} in {i['thread']}: {i['text']!r}"
    if kind == "deadline":
        return f"- {at} deadline {i['kind']}"
    return f"- {at} GM {i['command']} {gm_args(i.get('args') or {}, zone)} — reason: {i.get('reason')}"


def _event_of(key: str, game: str) -> int | None:
    """Outbox keys are `<game>:<event seq>:<n>` (store.commit_step)."""
    parts = key[len(game) + 1:].split(":") if key.startswith(game + ":") else []
    return int(parts[0]) if parts and parts[0].isdigit() else None


def _when(iso: str, zone: str) -> str:
    """A stored time as the report shows it (core.clock.show, issue 23 item 1)."""
    return show(datetime.fromisoformat(iso), zone, seconds=True, year=True)


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None
