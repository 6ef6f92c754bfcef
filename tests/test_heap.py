"""The collector after start-up (issue 37, `service.heap`)."""

from __future__ import annotations

import subprocess
import sys


def test_start_up_is_frozen_once_a_process() -> None:
    code = ("import gc\nfrom tianshen.service.heap import freeze_startup\n"
            "first = freeze_startup(); frozen = gc.get_freeze_count()\n"
            "print(first, frozen > 1000, freeze_startup(), gc.get_freeze_count() == frozen)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["True", "True", "False", "True"]


def test_rehearse_freezes_start_up_before_the_game() -> None:
    code = ("import gc\nfrom typer.testing import CliRunner\nfrom tianshen.cli import app\n"
            "r = CliRunner().invoke(app, ['rehearse', '--db', 'sqlite://', '--quiet'])\n"
            "print(r.exit_code, gc.get_freeze_count() > 1000)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["0", "True"]
