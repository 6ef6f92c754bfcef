"""Issue 33: a daemon restart is cheap.  `tianshen run` on a database already at the newest
migration imports neither Alembic nor the web pages nor PostgreSQL's dialect (together a
third of a second of every start, and the crash tests restart the daemon some forty times)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from alembic.script import ScriptDirectory

from tianshen.store import Store
from tianshen.store.store import alembic_config, head_revision

# what `tianshen run` imports before its first tick (cli.run's own imports), then the store's upgrade
START = """
import sys
import tianshen.cli
from tianshen.config import load_config
from tianshen.service.daemon import Daemon
from tianshen.service.holders import refuse_if_held
from tianshen.store import Store
Store(sys.argv[1]).upgrade()
print(" ".join(m for m in ("alembic", "tianshen.web.views", "sqlalchemy.dialects.postgresql") if m in sys.modules))
"""


def test_the_head_is_read_from_the_migration_files_as_alembic_finds_it() -> None:
    assert head_revision() == ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


def test_a_restart_on_a_migrated_database_imports_no_alembic_no_web_pages(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'game.db'}"
    store = Store(url)
    assert not store._at_head()  # a new database: Alembic builds it
    store.upgrade()
    assert store._at_head()
    store.close()
    done = subprocess.run([sys.executable, "-c", START, url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []
