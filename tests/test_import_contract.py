"""The layers' import contract (issue 24), read from the AST of src/tianshen (imports inside
functions included):

- tianshen.core imports nothing of the project outside core, and does no I/O (no file,
  process, network or database module; no `open`);
- a family (tianshen.rules.<family>) imports only core and itself; classic and game_ten may
  also import tianshen.rules.common, the shared 001 family code; rules.common imports only core;
- the shell (service, web, sim, store, forum, cli, replay, config) reaches a family only
  through the tianshen.rules registry, never a family's modules (KNOWN: the exceptions left
  today, exactly, so the list can only shrink);
- service does not import sim (the daemon gets its simulated players injected).
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "tianshen"
SHARED_001 = {"classic", "game_ten"}  # the families built on rules.common
IO_MODULES = {"os", "io", "pathlib", "tomllib", "shutil", "subprocess", "socket", "sqlite3", "sqlalchemy",
              "httpx", "urllib", "requests", "logging", "time", "threading"}

# the shell modules that still read a family's internals (issue 24, not done yet): the
# simulated players' role tables
KNOWN = {
    ("tianshen.sim.classic", "tianshen.rules.common.roles"),
    ("tianshen.sim.game_ten", "tianshen.rules.common.roles"),
    ("tianshen.sim.smart", "tianshen.rules.common.roles"),
    ("tianshen.sim.n_lives", "tianshen.rules.n_lives"),
    ("tianshen.sim.n_lives", "tianshen.rules.n_lives.abilities"),
    ("tianshen.sim.n_lives", "tianshen.rules.n_lives.cards"),
    ("tianshen.sim.n_lives", "tianshen.rules.n_lives.victory"),
}


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> list[tuple[str, str, int]]:
    """(module, imported name, line) for every import in src/tianshen."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        module = _module(path)
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [(module, a.name, node.lineno) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                found.append((module, base, node.lineno))
                # `from tianshen.rules import classic` names a module too
                found += [(module, f"{base}.{a.name}", node.lineno) for a in node.names
                          if (SRC.parent / f"{base}.{a.name}".replace(".", "/")).is_dir()
                          or (SRC.parent / (f"{base}.{a.name}".replace(".", "/") + ".py")).is_file()]
    return found


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def _family(name: str) -> str | None:
    """The family a module belongs to (tianshen.rules.<family>…), else None."""
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["tianshen", "rules"] else None


IMPORTS = _imports()


def test_core_imports_nothing_of_the_project_outside_core() -> None:
    bad = [(m, n, line) for m, n, line in IMPORTS
           if _within(m, "tianshen.core") and _within(n, "tianshen") and not _within(n, "tianshen.core")]
    assert bad == []


def test_core_does_no_io() -> None:
    bad = [(m, n, line) for m, n, line in IMPORTS if _within(m, "tianshen.core") and n.split(".")[0] in IO_MODULES]
    assert bad == []
    for path in (SRC / "core").rglob("*.py"):
        calls = [node.lineno for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open"]
        assert calls == [], path


def test_a_family_imports_only_core_itself_and_the_shared_001_code() -> None:
    bad = []
    for m, n, line in IMPORTS:
        family = _family(m)
        if family is None or not _within(n, "tianshen"):
            continue
        allowed = _within(n, "tianshen.core") or _family(n) == family
        if family in SHARED_001:
            allowed = allowed or _within(n, "tianshen.rules.common")
        if not allowed:
            bad.append((m, n, line))
    assert bad == []


def test_the_shell_reaches_a_family_only_through_the_registry() -> None:
    found = {(m, n) for m, n, _ in IMPORTS if _family(m) is None and _family(n) is not None
             and not _within(m, "tianshen.rules")}
    assert found - KNOWN == set(), "a new import of a family's internals"
    assert KNOWN - found == set(), "fixed: take it off KNOWN"


def test_service_does_not_import_sim() -> None:
    bad = [(m, n, line) for m, n, line in IMPORTS if _within(m, "tianshen.service") and _within(n, "tianshen.sim")]
    assert bad == []


def test_the_contract_sees_the_imports_it_checks() -> None:
    """The walk finds imports in functions and relative ones (the test could not fail otherwise)."""
    assert ("tianshen.service.daemon", "tianshen.service.accounts") in {(m, n) for m, n, _ in IMPORTS}
    assert ("tianshen.rules.classic.ruleset", "tianshen.rules.common.game") in {(m, n) for m, n, _ in IMPORTS}
    assert any(_family(n) == "n_lives" for m, n, _ in IMPORTS if m == "tianshen.sim.n_lives")
