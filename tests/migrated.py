"""A migrated SQLite database for a test, without running Alembic for each one.

`Store.upgrade()` on a new SQLite file runs every migration (Alembic loads its scripts and
runs them: about 0.3-0.5 s of CPU each time).  `migrated_sqlite(path)` builds such a file once
per test process (each xdist worker has its own) with `Store.upgrade()` itself, and copies it
to `path` for each caller: the same schema, `alembic_version` at head, so a later `upgrade()`
on the copy finds it at head and returns.  Tests of the migrations themselves keep building
their databases with Alembic (test_upgrade_kill, test_store's upgrade tests).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from tianshen.store import Store

_template: Path | None = None


def _built() -> Path:
    global _template
    if _template is None:
        where = Path(tempfile.mkdtemp(prefix="tianshen-migrated-"))
        atexit.register(shutil.rmtree, where, ignore_errors=True)
        path = where / "migrated.db"
        store = Store(f"sqlite:///{path}")  # durable: the default rollback journal, one file to copy
        try:
            store.upgrade()
        finally:
            store.close()
        _template = path
    return _template


def migrated_sqlite(path: Path) -> str:
    """The URL of a new SQLite database at `path`, migrated to head (a copy of one built once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_built(), path)
    return f"sqlite:///{path}"
