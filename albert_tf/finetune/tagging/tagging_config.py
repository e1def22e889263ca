"""`TaggingConfig`: every setting of a token classification (tagging) run."""

from __future__ import annotations

import dataclasses
import os

from albert_tf.errors import UserError
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.finetune.tagging.sentences import FILE_FORMATS
from albert_tf.finetune.tagging.tag_schemes import SCHEME_ALIASES, SCHEMES


@dataclasses.dataclass(frozen=True)
class TaggingConfig(FinetuneConfig):
    """`FinetuneConfig` plus the files and how to read them (the flags of `run_tagging.py`).

    Example:
    >>> config = TaggingConfig(data_dir="wnut17", train_file="wnut17train.conll",
    ...                        dev_file="emerging.dev.conll", init_checkpoint="bundle/")
    >>> config.replace(tag_scheme="bio").tag_scheme
    'bio'
    """

    data_dir: str = ""
    train_file: str = "train.txt"  # A name in data_dir, or a path.
    dev_file: str = "dev.txt"
    test_file: str = "test.txt"
    file_format: str = "auto"  # conll, jsonl, or auto (by extension: .jsonl/.json, else conll).
    tag_column: int = -1  # CoNLL: 0-based column of the tag (-1: the last).
    tag_scheme: str = "iob2"  # iob1, iob2 (bio), iobes.
    label_all_pieces: bool = False  # Train every piece of a word on its label (else the first).
    labels: tuple[str, ...] = ()  # The tag set; read from the training file when empty.

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.tag_scheme.lower() not in (*SCHEMES, *SCHEME_ALIASES):
            raise UserError(
                f"tag_scheme={self.tag_scheme!r} is not supported",
                where="--tag_scheme",
                fix=f"choose one of {', '.join((*SCHEMES, *SCHEME_ALIASES))}",
            )
        if self.file_format not in FILE_FORMATS:
            raise UserError(
                f"file_format={self.file_format!r} is not supported",
                where="--file_format",
                fix=f"choose one of {', '.join(FILE_FORMATS)}",
            )
        if self.tag_column == 0:
            raise UserError("tag_column 0 is the word column", where="--tag_column")

    def data_path(self, file_name: str) -> str:
        """`file_name` under `data_dir` (a path with a directory part is used as is)."""
        if os.path.dirname(file_name) or not self.data_dir:
            return file_name
        return os.path.join(self.data_dir, file_name)
