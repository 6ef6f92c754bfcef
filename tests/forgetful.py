"""A GM adapter on the memory board that behaves like a real forum after a crash: it keeps
its idempotency keys for its own process only (Discuz keeps none, Spirit only for 30
minutes), so a write made again after a restart arrives twice, and `find_written` must look
at what is on the board.  The board's own mode (`MemoryBoard(remembers_keys=False)`) does
the same for every adapter it gives out; this one does it on a board that remembers."""

from __future__ import annotations

from tianshen.forum.memory import MemoryForum


class ForgetfulForum(MemoryForum):
    remembers_keys = False
