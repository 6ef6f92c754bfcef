"""Python's collector after start-up (issue 37): the objects a process made while starting
(the imported modules, SQLAlchemy's tables and compiled statements, the rulesets) live as
long as it does, yet each full collection walked them all again.  `freeze_startup()` runs
one collection and moves what is left out of the collector's sight; called once by the
long-lived entry points (`tianshen rehearse`/`demo`, the daemon's run), not by the library."""

from __future__ import annotations

import gc

_frozen = False


def freeze_startup() -> bool:
    """Once per process: collect, then freeze what remains; False when done already."""
    global _frozen
    if _frozen:
        return False
    _frozen = True
    gc.collect()
    gc.freeze()
    return True
