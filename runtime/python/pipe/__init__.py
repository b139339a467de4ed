"""The pipe module: what a command step's Python program uses to read its
parameters, inputs and outputs, and to log metrics, images and tables into
the run (docs/python.md).

Every bundle ships it as python/pipe/, and the runtime puts that folder on
PYTHONPATH for every command step, on every target. Standard library only.
Each function reads the environment the runtime gives the step (PIPE_*), so
outside a step it raises PipeError naming the variable that is missing.
"""

import json
import math
import numbers
import os
import re
import time

__all__ = [
    "PipeError",
    "param",
    "input_path",
    "output_path",
    "log_metric",
    "log_image",
    "log_table",
    "checkpoint_dir",
    "latest_checkpoint",
]

# A metric name as the runtime reads PIPE_METRICS lines (observe/metrics.c):
# 1 to 200 bytes, no comma, quote or control character, and (the line being
# split at blanks) no space or tab.
METRIC_NAME_MAX = 200
_BAD_NAME_CHARS = re.compile(r'[\x00-\x20\x7f,"]')
# What a media file's name is made of (the media contract, docs/python.md).
_FILE_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_JPEG_MAGIC = b"\xff\xd8\xff"


class PipeError(RuntimeError):
    """Raised when the module is used outside a pipe step, or when the step
    does not have what was asked for."""


def _env(var):
    """The variable's value; PipeError when the program runs outside a step."""
    value = os.environ.get(var)
    if value is None:
        raise PipeError(
            f"{var} is not set: the pipe module must run inside a pipe step "
            "(a command step started by the bundle's executable, `run` or `step`)"
        )
    return value


def _in_step():
    return "PIPE_INVOCATION" in os.environ


def _require_step(var):
    if not _in_step():
        _env(var)  # raises, naming the variable


def _env_name(prefix, name):
    if not isinstance(name, str) or not name:
        raise TypeError(f"the name must be a non-empty string, not {name!r}")
    return prefix + name.upper()


def _param_types():
    """{name: type} from PIPE_STEP_PARAM_TYPES ("lr:float epochs:int")."""
    out = {}
    for word in os.environ.get("PIPE_STEP_PARAM_TYPES", "").split():
        name, _, kind = word.partition(":")
        out[name.upper()] = kind
    return out


def _typed(text, kind, var):
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    if kind == "bool":
        if text in ("true", "false"):
            return text == "true"
        raise PipeError(f"{var}={text!r} is not true or false")
    return text


def param(name):
    """The value of the step's parameter `name`: an int, float, bool or str
    as the parameter is declared (PIPE_PARAM_<NAME>)."""
    var = _env_name("PIPE_PARAM_", name)
    _require_step(var)
    if var not in os.environ:
        raise PipeError(f"step has no parameter `{name}` ({var} is not set)")
    return _typed(os.environ[var], _param_types().get(name.upper(), "str"), var)


def input_path(name):
    """The path of the step's input artifact `name` (PIPE_INPUT_<NAME>)."""
    var = _env_name("PIPE_INPUT_", name)
    _require_step(var)
    if var not in os.environ:
        raise PipeError(f"step has no input `{name}` ({var} is not set)")
    return os.environ[var]


def output_path(name):
    """Where the program writes its output `name`, a file or a folder
    (PIPE_OUTPUT_<NAME>); the runtime checks it exists after exit 0."""
    var = _env_name("PIPE_OUTPUT_", name)
    _require_step(var)
    if var not in os.environ:
        raise PipeError(f"step has no output `{name}` ({var} is not set)")
    return os.environ[var]


def checkpoint_dir():
    """The step's checkpoint folder (PIPE_CHECKPOINT_DIR), or None when the
    step has no @checkpoint."""
    _require_step("PIPE_INVOCATION")
    return os.environ.get("PIPE_CHECKPOINT_DIR") or None


def latest_checkpoint():
    """The newest complete checkpoint (PIPE_CHECKPOINT_LATEST), or None when
    the step has no @checkpoint or no checkpoint yet."""
    _require_step("PIPE_INVOCATION")
    return os.environ.get("PIPE_CHECKPOINT_LATEST") or None


def check_metric_name(name):
    """ValueError unless the runtime accepts `name` as a metric name."""
    if not isinstance(name, str):
        raise ValueError(f"bad metric name {name!r}: it is not a string")
    data = name.encode("utf-8", "surrogateescape")
    if not data:
        raise ValueError("bad metric name '': it is empty")
    if len(data) > METRIC_NAME_MAX:
        raise ValueError(f"bad metric name {name[:40]!r}...: it is longer than {METRIC_NAME_MAX} bytes")
    bad = _BAD_NAME_CHARS.search(name)
    if bad:
        raise ValueError(
            f"bad metric name {name!r}: it holds {bad.group()!r} "
            "(no space, tab, comma, quote or control character)"
        )


def sanitize_metric_name(name):
    """`name` made acceptable: each run of characters the runtime refuses
    becomes `_` ("train loss" -> "train_loss"), cut to 200 bytes."""
    out = _BAD_NAME_CHARS.sub("_", str(name)) or "_"
    return out.encode("utf-8")[:METRIC_NAME_MAX].decode("utf-8", "ignore") or "_"


def _number(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        # numpy and torch scalars: anything float() takes that is one number
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{what} {value!r} is not a number") from None
    return float(value)


def _step_value(step):
    if step is None:
        return None
    try:
        as_int = int(step)
    except (TypeError, ValueError):
        as_int = -1
    if isinstance(step, bool) or as_int != step or as_int < 0:
        raise ValueError(f"step {step!r} is not a whole number of at least 0")
    if as_int > 2**63 - 1:  # the runtime's steps are 64-bit
        raise ValueError(f"step {step!r} is above 9223372036854775807")
    return as_int


def _append(path, text):
    """One write(2) of text, appended: lines of several writers never mix."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o666)
    try:
        data = text.encode("utf-8")
        while data:
            n = os.write(fd, data)
            data = data[n:]
    finally:
        os.close(fd)


def log_metric(name, value, step=None):
    """Appends one point of metric `name` to the run's metrics (PIPE_METRICS:
    `NAME VALUE` or `NAME STEP VALUE`). Without `step`, the runtime numbers
    the points 0, 1, 2, ... Only rank 0's metrics are kept."""
    path = _env("PIPE_METRICS")
    check_metric_name(name)
    number = _number(value, f"value of metric {name!r}:")
    step = _step_value(step)
    text = repr(number)  # round trip; "nan" and "inf" as strtod reads them
    _append(path, f"{name} {text}\n" if step is None else f"{name} {step} {text}\n")


# ---- images and tables (media/, rank 0 only) ----

_counter = [0]


def _media_dir():
    """PIPE_MEDIA_DIR, or None on a rank other than 0 (log_* do nothing)."""
    _env("PIPE_METRICS")  # outside a step: the error
    return os.environ.get("PIPE_MEDIA_DIR") or None


def _media_name(name, step, ext):
    _counter[0] += 1
    base = _FILE_CHARS.sub("_", name)[:80].strip(".") or "media"
    at = "" if step is None else f"-{step}"
    return f"{base}{at}-{os.getpid()}-{_counter[0]}{ext}"


def _time_s():
    try:
        return round(max(0.0, time.time() - float(os.environ["PIPE_STEP_START"])), 3)
    except (KeyError, ValueError):
        return None


def _write_media(media, sub, name, step, ext, data, kind):
    folder = os.path.join(media, sub)
    os.makedirs(folder, exist_ok=True)
    file = _media_name(name, step, ext)
    final = os.path.join(folder, file)
    tmp = os.path.join(folder, f".{file}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, final)
    line = json.dumps(
        {"kind": kind, "name": name, "step": step, "file": f"{sub}/{file}", "time_s": _time_s()},
        ensure_ascii=False,
    )
    _append(os.path.join(media, "index.jsonl"), line + "\n")
    return final


def _check_media_name(name):
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"bad media name {name!r}: a non-empty string is needed")
    if len(name.encode("utf-8", "surrogateescape")) > METRIC_NAME_MAX:
        raise ValueError(f"bad media name {name[:40]!r}...: it is longer than {METRIC_NAME_MAX} bytes")


def log_image(name, image, step=None):
    """Logs an image for the report: `image` is PNG or JPEG bytes, or the
    path of such a file. Returns the path of the copy in media/ (None on a
    rank other than 0, where it does nothing)."""
    media = _media_dir()
    _check_media_name(name)
    step = _step_value(step)
    if isinstance(image, (bytes, bytearray, memoryview)):
        data = bytes(image)
    elif isinstance(image, (str, os.PathLike)):
        with open(image, "rb") as f:
            data = f.read()
    else:
        raise TypeError(f"log_image takes PNG or JPEG bytes or a file's path, not {type(image).__name__}")
    if data.startswith(_PNG_MAGIC):
        ext = ".png"
    elif data.startswith(_JPEG_MAGIC):
        ext = ".jpg"
    else:
        raise ValueError(f"image {name!r} is neither PNG nor JPEG (its first bytes are {data[:8]!r})")
    if media is None:
        return None
    return _write_media(media, "images", name, step, ext, data, "image")


def _cell(value, where):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        return number if math.isfinite(number) else None  # JSON has no NaN
    try:  # numpy and torch scalars
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: {value!r} is not a number, string, boolean or None") from None
    return number if math.isfinite(number) else None


def log_table(name, rows, columns=None, step=None):
    """Logs a table for the report: `rows` is a list of dicts (the columns
    are their keys, in order of first appearance), or a list of lists with
    `columns=[...]`. Cells are numbers, strings, booleans or None. Returns
    the path of the table's file (None on a rank other than 0)."""
    media = _media_dir()
    _check_media_name(name)
    step = _step_value(step)
    rows = list(rows)
    if columns is None:
        if not all(isinstance(r, dict) for r in rows):
            raise ValueError(f"table {name!r}: rows must be dicts, or lists with columns=[...]")
        rows = [{str(k): v for k, v in r.items()} for r in rows]
        columns = list(dict.fromkeys(k for r in rows for k in r))
        cells = [[_cell(r.get(c), f"table {name!r}, column {c!r}") for c in columns] for r in rows]
    else:
        columns = [str(c) for c in columns]
        cells = []
        for i, r in enumerate(rows):
            if isinstance(r, dict) or len(r) != len(columns):
                raise ValueError(f"table {name!r}: row {i} does not have the {len(columns)} cells of columns={columns!r}")
            cells.append([_cell(v, f"table {name!r}, row {i}") for v in r])
    if media is None:
        return None
    data = json.dumps({"columns": columns, "rows": cells}, ensure_ascii=False, allow_nan=False).encode("utf-8")
    return _write_media(media, "tables", name, step, ".json", data, "table")
