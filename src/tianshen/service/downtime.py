"""When the database became unusable, kept in a small file beside the config: the database
cannot hold it while it is down, and a restart during or after the outage must still give
the games the time back (003 §12.4).  Written when the outage is seen, removed once every
game served here got its time back."""

from __future__ import annotations

import hashlib
import json
import logging
from datetime import datetime
from pathlib import Path

log = logging.getLogger(__name__)


class OutageNote:
    def __init__(self, config_file: str, board: str, database: str) -> None:
        key = hashlib.sha256(f"{board}\n{database}".encode()).hexdigest()[:12]
        self.path = Path(config_file).expanduser().resolve().parent / f".tianshen-store-down-{key}.json"
        self.board = board

    def write(self, since: datetime, kind: str, said: str) -> None:
        """Best effort: a disk that cannot be written loses the note (said in one line)."""
        try:
            self.path.write_text(json.dumps({"board": self.board, "since": since.isoformat(), "kind": kind,
                                             "said": said}, ensure_ascii=False), encoding="utf-8")
        except OSError as exc:
            log.warning("the outage's start could not be noted in %s (a restart before the database is back "
                        "would not give its time back): %s", self.path, exc)

    def read(self) -> tuple[datetime, str, str] | None:
        """(since, kind, what it said) of an outage not yet given back; None: none noted."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data["board"] != self.board:
                return None
            return datetime.fromisoformat(data["since"]), str(data["kind"]), str(data["said"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("the outage note %s cannot be read, ignored: %s", self.path, exc)
            return None

    def remove(self) -> None:
        try:
            self.path.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("the outage note %s could not be removed: %s", self.path, exc)
