"""A pydantic ValidationError of the config file as the GM reads it: one line per error, with
the file, the key as the file writes it (`[game] start`, `[[game]] #2 name`, `[game] players
#3 forum_name`), and the accepted form.  An unknown key gets a did-you-mean from the names
of its table's fields."""

from __future__ import annotations

import difflib
import json
import types
from datetime import datetime
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import AwareDatetime, BaseModel, SecretStr, ValidationError
from pydantic.fields import FieldInfo

TAGS = ("one", "many")  # the tags of `[game]` / `[[game]]` (config.Games), second in a loc
MAX_LINES = 8


def explain(path: str, exc: ValidationError, root: type[BaseModel]) -> str:
    """One line per error; a misspelt key is told once (not also as its missing key)."""
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    meant = {tuple(e["loc"][:-1]) + (m,) for e in errors if e["type"] == "extra_forbidden"
             for m in _close(e["loc"], root)}
    errors = [e for e in errors if not (e["type"] == "missing" and tuple(e["loc"]) in meant)]
    lines = [f"{path}: {_line(e, root)}" for e in errors]
    if len(lines) > MAX_LINES:
        lines = lines[:MAX_LINES] + [f"{path}: … and {len(errors) - MAX_LINES} more"]
    return "\n".join(lines)


def _line(error: Any, root: type[BaseModel]) -> str:
    loc = tuple(error["loc"])
    if error["type"] == "extra_forbidden":
        return _unknown(loc, error["input"], root)
    where, name, field = _walk(loc, root)
    problem = "missing" if error["type"] == "missing" else f"{_show(error['input'])} is refused ({_msg(error)})"
    return f"{where}: {problem}; accepted: {_form(name, field)}"


def _unknown(loc: tuple, value: object, root: type[BaseModel]) -> str:
    key, close = str(loc[-1]), _close(loc, root)
    if len(loc) == 1:  # a table at the top of the file
        what, quote = ("table", "[{}]") if isinstance(value, dict) else ("key", "'{}'")
        hint = (f"did you mean {quote.format(close[0])}?" if close
                else "accepted tables: " + ", ".join(f"[{k}]" for k in root.model_fields))
        return f"unknown {what} {quote.format(key)}; {hint}"
    where, _, _ = _walk(loc[:-1], root)
    hint = f"did you mean '{close[0]}'?" if close else "accepted keys: " + ", ".join(_known(loc, root))
    return f"{where} unknown key '{key}'; {hint}"


def _known(loc: tuple, root: type[BaseModel]) -> list[str]:
    """The keys of the table that holds the (unknown) key at `loc`."""
    field = _walk(loc[:-1], root)[2]
    model = _model(field.annotation) if field is not None else root
    return list(model.model_fields) if model is not None else []


def _close(loc: tuple, root: type[BaseModel]) -> list[str]:
    return difflib.get_close_matches(str(loc[-1]), _known(loc, root), n=1, cutoff=0.6)


def _walk(loc: tuple, root: type[BaseModel]) -> tuple[str, str, FieldInfo | None]:
    """The key as written in the file, its name, and its field (None at the top)."""
    model: type[BaseModel] | None = root
    field: FieldInfo | None = None
    header, parts, name = "", [], ""
    rest = [e for i, e in enumerate(loc) if not (i == 1 and e in TAGS)]
    for i, elem in enumerate(rest):
        if isinstance(elem, int):
            if i == 1 and header:
                header = f"[[{header[1:-1]}]] #{elem + 1}"
            else:
                parts.append(f"#{elem + 1}")
            continue
        if model is not None and elem in model.model_fields:
            field, name = model.model_fields[elem], elem
            if i == 0:
                header = f"[{elem}]"
            else:
                parts.append(elem)
            model = _model(field.annotation)
        else:
            parts.append(str(elem))  # a key of a free table (roles)
            model = None
    where = " ".join([header] + parts).strip() or "the top of the file"
    return where, name, field


def _model(annotation: object) -> type[BaseModel] | None:
    """The table model inside an annotation (`X | None`, `list[X]`, a tagged union)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return next((m for a in get_args(annotation) if (m := _model(a)) is not None), None)


def _form(name: str, field: FieldInfo | None) -> str:
    if field is None:
        return "tables [database], [forum], [game] or [[game]], [run], [web]"
    return _kind(name, field.annotation)


def _kind(name: str, annotation: Any) -> str:
    """What a key of this type takes, as the GM writes it in TOML."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _kind(name, args[0])
    if origin in (Union, types.UnionType):
        kinds = [a for a in args if a is not type(None)]
        if any(_model(a) for a in kinds) and len(kinds) > 1:
            return f"a [{name}] table, or [[{name}]] tables"
        return " or ".join(_kind(name, a) for a in kinds)
    if origin is Literal:
        return "one of " + ", ".join(json.dumps(a) for a in args)
    if origin is list:
        inner = _model(args[0])
        if inner is not None:
            keys = " = …, ".join(inner.model_fields) + " = …"
            return f"a list of tables, e.g. {name} = [{{ {keys} }}]"
        return f'a list of strings, e.g. {name} = ["kate", "leo"]'
    if origin is dict:
        return f'a table of strings, e.g. {name} = {{ "白狐" = "杀手" }}'
    if isinstance(annotation, type):
        return _scalar(name, annotation)
    return str(annotation)


def _scalar(name: str, annotation: type) -> str:
    if issubclass(annotation, BaseModel):
        return f"a table [{name}]"
    if issubclass(annotation, (datetime, AwareDatetime)):
        return (f"a date and time, e.g. {name} = 2026-03-01T20:00:00+08:00 (without an offset it is read "
                f"in the board's display zone, [forum] display_timezone)")
    if issubclass(annotation, bool):
        return f"true or false, e.g. {name} = false"
    if issubclass(annotation, int):
        return f"a whole number, e.g. {name} = 12345"
    if issubclass(annotation, float):
        return f"a number, e.g. {name} = 60"
    if issubclass(annotation, (str, SecretStr)):
        return f'a string in quotes, e.g. {name} = "…"'
    return annotation.__name__


def _msg(error: Any) -> str:
    msg = str(error["msg"])
    return msg[:1].lower() + msg[1:]


def _show(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:39] + "…"
