r"""Word segmenters for whole-word masking of text written without spaces (`--word_segmenter`).

A segmenter turns a sentence (the normalized text the tokenizer encodes) into its words; the
data builder maps the words onto SentencePiece pieces (`word_units`). `--word_segmenter` is:

* `none` (the default): no segmenter; each character of a script written without spaces
  (CJK, kana, Thai, ...) is its own word, other text keeps the original "▁"/punctuation rule;
* `jieba`: jieba's default mode (dictionary + HMM) for Chinese, from the `chinese` extra
  (`pip install albert_tf[chinese]`);
* `module:function`: a Python callable `text -> iterable of words`, imported by name (so
  every worker process, and every Beam worker, builds the same one), e.g. a Japanese or Thai
  segmenter wrapped in a function of your own package;
* `command:PROGRAM ARGS`: an external program that reads sentences, one a line, on stdin and
  writes each one's words, separated by spaces, one line per input line, on stdout (started
  once per batch of documents).

The words must cover the text: their non-space characters, in order, are exactly the text's
(spaces may be left out or kept). A segmenter that is not installed, cannot be imported or
run, or returns words that do not cover the text, is a `UserError`; `check_word_segmenter`
runs it on a probe sentence before a build writes anything, and the build checks every
sentence (the error names the file and line). The output is deterministic when the segmenter
is (jieba is): the same records for any `--parallelism`, and from the Beam builder.

Example:
    >>> segmenter = load_word_segmenter("none")
    >>> segmenter.segment(["abc"]) is None, segmenter.description()
    (True, 'none')
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import logging
import shlex
import subprocess
import warnings
from collections.abc import Callable, Iterable

from albert_tf.data.word_units import word_starts
from albert_tf.errors import UserError

NO_SEGMENTER = "none"
JIEBA = "jieba"
COMMAND_PREFIX = "command:"
WORD_SEGMENTER_HELP = (
    "Words for whole-word masking of text written without spaces: none (each CJK/Thai "
    "character is a word), jieba (Chinese; the chinese extra), module:function (a Python "
    "callable text -> words) or command:PROGRAM (reads lines, writes space-separated words)."
)
_FIX = "use none, jieba, package.module:function or command:PROGRAM"
# The probe `check_word_segmenter` runs: Chinese, Latin letters, digits and punctuation.
PROBE_TEXT = "albert 是一个轻量的模型,我们在 2020 年用它。"


@dataclasses.dataclass(frozen=True)
class WordSegmenter:
    """A loaded segmenter: `segment` maps sentences to words (None for `none`)."""

    spec: str
    version: str = ""
    _segment_one: Callable[[str], Iterable[str]] | None = None
    _command: tuple[str, ...] = ()

    def description(self) -> str:
        """`spec`, with the version when known (recorded in the build's manifest)."""
        return f"{self.spec} {self.version}".strip()

    def segment(self, texts: list[str]) -> list[list[str]] | None:
        """Each text's words (not yet checked against the text); None without a segmenter."""
        if self._command:
            return _run_command(self._command, texts, self.spec)
        if self._segment_one is None:
            return None
        words = []
        for text in texts:
            try:
                result = self._segment_one(text)
                words.append([word for word in result])
            except Exception as error:  # A user's callable: report it as theirs.
                raise UserError(
                    f"word segmenter {self.spec!r} failed on {text[:40]!r} ({error!r})",
                    where="--word_segmenter",
                    fix="fix the segmenter",
                ) from error
        return words


@functools.cache
def load_word_segmenter(spec: str) -> WordSegmenter:
    """The segmenter `spec` names (loaded once per process).

    Raises:
        UserError: unknown name, segmenter not installed, not importable or not callable.
    """
    spec = spec.strip()
    if spec == NO_SEGMENTER or not spec:
        return WordSegmenter(NO_SEGMENTER)
    if spec == JIEBA:
        return _jieba()
    if spec.startswith(COMMAND_PREFIX):
        command = tuple(shlex.split(spec[len(COMMAND_PREFIX) :]))
        if not command:
            raise UserError("--word_segmenter=command: names no program", fix=_FIX)
        return WordSegmenter(spec, _command=command)
    if ":" in spec:
        return _python_callable(spec)
    raise UserError(f"unknown word segmenter {spec!r}", where="--word_segmenter", fix=_FIX)


def check_word_segmenter(spec: str) -> WordSegmenter:
    """Loads `spec` and runs it on `PROBE_TEXT`; a `UserError` when it cannot run or its words
    do not cover the probe. Called before a build writes anything."""
    segmenter = load_word_segmenter(spec)
    words = segmenter.segment([PROBE_TEXT])
    if words is not None:
        word_starts(PROBE_TEXT, words[0], spec, where="the probe sentence " + repr(PROBE_TEXT))
    return segmenter


def _jieba() -> WordSegmenter:
    try:
        with warnings.catch_warnings():  # jieba 0.42 imports the deprecated pkg_resources.
            warnings.filterwarnings("ignore", "pkg_resources", UserWarning)
            import jieba  # Optional: the chinese extra.
    except ImportError:
        raise UserError(
            "word segmenter 'jieba' is not installed",
            where="--word_segmenter=jieba",
            fix="pip install 'albert_tf[chinese]' (or pip install jieba)",
        ) from None
    jieba.setLogLevel(logging.WARNING)  # Not "Building prefix dict ..." in every worker.
    tokenizer = jieba.Tokenizer()  # Its own dictionary: nothing another caller added.
    return WordSegmenter(
        JIEBA, getattr(jieba, "__version__", ""), functools.partial(tokenizer.lcut, HMM=True)
    )


def _python_callable(spec: str) -> WordSegmenter:
    module_name, _, attribute = spec.rpartition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise UserError(
            f"word segmenter module {module_name!r} cannot be imported ({error})",
            where=f"--word_segmenter={spec}",
            fix="install it, or put its directory on PYTHONPATH",
        ) from None
    function = module
    for name in attribute.split("."):
        function = getattr(function, name, None)
    if not callable(function):
        raise UserError(
            f"{module_name} has no callable {attribute!r}",
            where=f"--word_segmenter={spec}",
            fix="name a function text -> words as module:function",
        )
    return WordSegmenter(spec, str(getattr(module, "__version__", "")), function)


def _run_command(command: tuple[str, ...], texts: list[str], spec: str) -> list[list[str]]:
    """Runs the program once over all `texts` (one a line; normalized text has no newline)."""
    try:
        result = subprocess.run(
            command,
            input="".join(text + "\n" for text in texts),
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
    except OSError as error:
        raise UserError(
            f"word segmenter command cannot be run ({error.strerror or error})",
            where=f"--word_segmenter={spec}",
            fix="install the program or fix the command",
        ) from None
    lines = result.stdout.splitlines()
    if result.returncode != 0 or len(lines) != len(texts):
        stderr = " ".join(result.stderr.split())[:200]
        raise UserError(
            f"word segmenter command exited with status {result.returncode} and wrote "
            f"{len(lines)} lines for {len(texts)} sentences ({stderr})",
            where=f"--word_segmenter={spec}",
            fix="write one line of space-separated words per input line",
        )
    return [line.split() for line in lines]
