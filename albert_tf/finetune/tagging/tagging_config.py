"""`TaggingConfig`: every setting of a token classification (tagging) run."""

from __future__ import annotations

import dataclasses

from albert_tf.config_fields import option
from albert_tf.errors import UserError
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.finetune.tagging.sentences import FILE_FORMATS
from albert_tf.finetune.tagging.tag_schemes import SCHEME_NAMES


@dataclasses.dataclass(frozen=True)
class TaggingConfig(FinetuneConfig):
    """`FinetuneConfig` plus the files and how to read them (the flags of `albert-tf tag`).

    Example:
    >>> config = TaggingConfig(data_dir="wnut17", train_file="wnut17train.conll",
    ...                        dev_file="emerging.dev.conll", init_checkpoint="bundle/")
    >>> config.replace(tag_scheme="BIO").tag_scheme
    'bio'
    """

    train_file: str = option("train.txt", "Training file (name in data_dir or path).")
    dev_file: str = option("dev.txt", "Dev file, scored with conlleval.")
    test_file: str = option("test.txt", "File to predict (tags optional).")
    file_format: str = option(
        "auto",
        "conll, jsonl, or auto (by extension: .jsonl/.json, else conll).",
        choices=FILE_FORMATS,
    )
    tag_column: int = option(-1, "CoNLL: 0-based column of the tag (-1: the last).")
    tag_scheme: str = option("iob2", "Tag scheme of the files.", choices=SCHEME_NAMES)
    label_all_pieces: bool = option(
        False, "Train every piece of a word on its tag (else the first piece only)."
    )
    labels: tuple[str, ...] = option((), "The tag set (default: the tags of the training file).")
    character_level: bool = option(
        False,
        "Each token is one character of text written without spaces (Chinese NER, one "
        "character a line): it is tokenized as running text, without the word-start piece, "
        "and tag(text) tags every character.",
    )

    def __post_init__(self) -> None:
        # Frozen: the scheme is kept lowercase ("BIO" -> "bio"), before the choices are checked.
        object.__setattr__(self, "tag_scheme", self.tag_scheme.lower())
        super().__post_init__()
        if self.tag_column == 0:
            raise UserError("tag_column 0 is the word column", where="--tag_column")
