"""Fine-tunes ALBERT for token classification (NER, chunking) on CoNLL-style or JSONL files.

See albert_tf.finetune.tagging. Predictions are written as `word gold predicted` lines
(conlleval's input); `--export_saved_model` writes a SavedModel with `tag(text)` and
`tag_words(words, num_words)`.

Examples:
    # WNUT-17 (word<TAB>tag, IOB2) from an encoder bundle:
    python scripts/run_tagging.py --data_dir=wnut17 --train_file=wnut17train.conll \
        --dev_file=emerging.dev.conll --init_checkpoint=/tmp/albert_export \
        --output_dir=/tmp/wnut17 --do_train --do_eval --export_saved_model

    # CoNLL-2003 (word POS chunk NER, IOB1), the tag in the last column:
    python scripts/run_tagging.py --data_dir=conll2003 --train_file=eng.train \
        --dev_file=eng.testa --test_file=eng.testb --tag_scheme=iob1 \
        --init_checkpoint=/tmp/albert_export --output_dir=/tmp/conll --do_train --do_eval
"""

from __future__ import annotations

import json

from absl import flags, logging

from albert_tf import cli
from albert_tf.finetune.flags import define_finetune_flags, finetune_config_values
from albert_tf.finetune.tagging.run import run_tagging
from albert_tf.finetune.tagging.sentences import FILE_FORMATS
from albert_tf.finetune.tagging.tag_schemes import SCHEME_ALIASES, SCHEMES
from albert_tf.finetune.tagging.tagging_config import TaggingConfig

FLAGS = flags.FLAGS
_DEFAULTS = TaggingConfig()

flags.DEFINE_string("data_dir", "", "Directory of the train/dev/test files.")
flags.DEFINE_string("train_file", _DEFAULTS.train_file, "Training file (name in data_dir or path).")
flags.DEFINE_string("dev_file", _DEFAULTS.dev_file, "Dev file, scored with conlleval.")
flags.DEFINE_string("test_file", _DEFAULTS.test_file, "File to predict (tags optional).")
flags.DEFINE_enum("file_format", _DEFAULTS.file_format, FILE_FORMATS, "conll, jsonl or auto.")
flags.DEFINE_integer("tag_column", _DEFAULTS.tag_column, "CoNLL: column of the tag (-1: last).")
flags.DEFINE_enum(
    "tag_scheme", _DEFAULTS.tag_scheme, [*SCHEMES, *SCHEME_ALIASES], "Tag scheme of the files."
)
flags.DEFINE_bool(
    "label_all_pieces", _DEFAULTS.label_all_pieces, "Train every piece of a word on its tag."
)
flags.DEFINE_list("labels", [], "The tag set (default: the tags of the training file).")
define_finetune_flags(TaggingConfig)


def config_from_flags(values: flags.FlagValues) -> TaggingConfig:
    """The `TaggingConfig` the flags describe."""
    return TaggingConfig(
        data_dir=values.data_dir,
        train_file=values.train_file,
        dev_file=values.dev_file,
        test_file=values.test_file,
        file_format=values.file_format,
        tag_column=values.tag_column,
        tag_scheme=values.tag_scheme,
        label_all_pieces=values.label_all_pieces,
        labels=tuple(values.labels),
        **finetune_config_values(values),
    )


def main(argv: list[str]) -> None:
    del argv
    results = run_tagging(config_from_flags(FLAGS), FLAGS.output_dir)
    logging.info("Results: %s", results)
    print(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    cli.run(main)
