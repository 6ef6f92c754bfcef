"""The throwaway django-spirit 0.14.3 forum of the adapter and end-to-end tests.

The forum itself is `tianshen.forum.spirit_local` (what `tianshen forum spirit-local` runs
for a GM); this module keeps the tests' names.  `start_spirit_server(tmp_dir)` makes a fresh
forum in `tmp_dir` (the GM 神的使者 as superuser, the players of DEFAULT_PLAYERS, the game
category, `comments_per_page`; a copy of a project seeded once with the same accounts,
`spirit_local.seeded_template`), serves it with waitress on a free port and waits for HTTP 200.

Run it by hand to get a forum to click around in (Ctrl-C stops it):
    python tests/forums/spirit_server.py /tmp/f [--ratelimit]
(or, as a GM would: `tianshen forum spirit-local --dir /tmp/f`, docs/first-game.md)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tianshen.forum import spirit_local
from tianshen.forum.spirit_local import (  # noqa: F401  (the names the tests import from here)
    DEFAULT_PLAYERS,
    GAME_CATEGORY,
    GM_USERNAME,
    PROJECT,
    SPIRIT_VERSION,
    WAITRESS_VERSION,
    LocalForum,
    SpiritServer,
    SpiritSetupError,
    cache_dir,
    ensure_venv,
    free_port,
    start_spirit_server,
)

# The test forums run as a forum in production does, not as Spirit's development project:
# no debug mode (Django keeps no query log, the templates track no origins) and no search
# index updated on every post (Whoosh, in the forum's request; tianshen never searches).
# Measured on 20 replies, thread reads, PMs and inbox reads: the forum's CPU a request
# 10-35 % less (docs/testing.md, "Eighth session").  Added to the settings module that
# `start_spirit_server` writes into each forum it starts (a GM's `tianshen forum spirit-local`
# keeps its own settings).
TEST_SETTINGS = """
# tests/forums/spirit_server.py: as in production
DEBUG = False
TEMPLATES[0]["OPTIONS"]["debug"] = False
HAYSTACK_SIGNAL_PROCESSOR = "haystack.signals.BaseSignalProcessor"
"""
if TEST_SETTINGS not in spirit_local.SETTINGS:
    spirit_local.SETTINGS += TEST_SETTINGS

if __name__ == "__main__":
    where = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/spirit-forum")
    srv = start_spirit_server(where, ratelimit="--ratelimit" in sys.argv)
    print(json.dumps({"base_url": srv.base_url, "gm": [srv.gm_username, srv.gm_password], "players": srv.players,
                      "category_id": srv.category_id, "pid": srv.process.pid if srv.process else None,
                      "timings": {k: round(v, 2) for k, v in srv.timings.items()}}, ensure_ascii=False, indent=1),
          flush=True)
    try:  # serve until interrupted
        if srv.process:
            srv.process.wait()
    except KeyboardInterrupt:
        srv.stop()
