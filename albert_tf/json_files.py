"""`read_json_file`: a JSON input, or a `UserError` naming the file, line and column.

Configs and indexes come from users and other tools (`albert_config.json`, a Hugging Face
`config.json`, a sharded checkpoint's index): a file that is missing, not UTF-8 or not JSON is a
mistake to point at, not a traceback.

Example:
    >>> import os
    >>> path = os.path.join(tmp_dir, "config.json")
    >>> with open(path, "w") as handle:
    ...     _ = handle.write('{"hidden_size": 768,\\n "num_layers": }')
    >>> try:
    ...     read_json_file(path, "a Hugging Face config.json")
    ... except UserError as error:
    ...     print(error.what, error.where.endswith("config.json:2:16"), sep="; ")
    not valid JSON (Expecting value); True
"""

from __future__ import annotations

import json
import os
from typing import Any

from albert_tf.errors import MissingInputError, UserError


def read_json_file(path: str | os.PathLike, kind: str = "JSON") -> Any:
    """The parsed content of `path`; `kind` says what the file must be (for the fix)."""
    path = os.fspath(path)
    fix = f"fix the file (it must be {kind})"
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError as error:
        raise MissingInputError("no such file", where=path, fix="check the path") from error
    except IsADirectoryError as error:
        raise UserError("a directory, not a file", where=path, fix=f"name {kind}") from error
    except UnicodeDecodeError as error:
        raise UserError(
            f"not UTF-8 text ({error.reason} at byte {error.start})", where=path, fix=fix
        ) from error
    except json.JSONDecodeError as error:
        raise UserError(
            f"not valid JSON ({error.msg})", where=f"{path}:{error.lineno}:{error.colno}", fix=fix
        ) from error
