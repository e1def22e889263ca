"""Input file patterns: comma-separated globs, the format of the original ALBERT flags.

Every reader of input files (tokenizer training, pretraining text, pretraining TFRecords) takes
its files as `--input_file=a/*.txt,b.txt` and expands them here, so they all agree on the order
(patterns as given, each pattern's matches sorted) and on the errors.

Example:
    >>> expand_file_patterns("data/sample.txt")
    ['data/sample.txt']
"""

from __future__ import annotations

import glob
import logging
import os
from collections.abc import Callable, Iterable

from albert_tf.errors import MissingInputError
from albert_tf.file_names import MANIFEST_FILE, MANIFEST_SUFFIX

NO_MATCH_MESSAGE = "Input pattern {pattern!r} matches no file (cwd {cwd}); check the path."
NO_PATTERN_MESSAGE = "No input file given; pass comma-separated glob patterns."


def expand_file_patterns(
    patterns: str | Iterable[str],
    *,
    glob_fn: Callable[[str], list[str]] = glob.glob,
    error_type: type[Exception] = MissingInputError,
    no_match_message: str = NO_MATCH_MESSAGE,
) -> list[str]:
    """The files matched by comma-separated glob patterns (or a list of them), in order.

    Patterns keep their order and each pattern's matches are sorted, so the list (and what is
    built from it) is the same on every machine. A file matched twice is listed twice.

    Args:
        patterns: a string of comma-separated globs, or several such strings.
        glob_fn: the glob to use; `tf.io.gfile.glob` also reads remote paths (`gs://...`).
        error_type: the exception raised on a pattern that matches nothing, or on no pattern.
        no_match_message: the message of that exception; `{pattern}` and `{cwd}` are filled in.

    Raises:
        error_type: a pattern matches no file, or no pattern is given.

    Example:
        >>> expand_file_patterns(["data/*.txt, data/sample.txt"])
        ['data/sample.txt', 'data/sample.txt']
    """
    if isinstance(patterns, str):
        patterns = [patterns]
    files: list[str] = []
    for pattern in (part.strip() for item in patterns for part in item.split(",")):
        if not pattern:
            continue
        matches = sorted(glob_fn(pattern))
        if not matches:
            raise error_type(no_match_message.format(pattern=pattern, cwd=os.getcwd()))
        files.extend(matches)
    if not files:
        raise error_type(NO_PATTERN_MESSAGE)
    return files


def is_build_manifest(path: str) -> bool:
    """True for the data builder's own manifest files (`manifest.json`, `*.manifest.json`).

    Example:
        >>> is_build_manifest("out/x.tfrecord.manifest.json"), is_build_manifest("out/x.tfrecord")
        (True, False)
    """
    name = os.path.basename(path)
    return name == MANIFEST_FILE or name.endswith(MANIFEST_SUFFIX)


def without_build_manifests(files: list[str]) -> list[str]:
    """`files` less the builder's manifests, which a glob such as `dir/*` also matches.

    Logs the skipped ones, so a reader of the log sees why they were left out.
    """
    manifests = [path for path in files if is_build_manifest(path)]
    if manifests:
        logging.info("Skipping the data builder's manifest files: %s", ", ".join(manifests))
    return [path for path in files if not is_build_manifest(path)]
