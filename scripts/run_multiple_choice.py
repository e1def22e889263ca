"""Fine-tunes ALBERT on multiple choice: RACE's layout or generic JSONL/CSV files.

See albert_tf.finetune.multiple_choice. Examples:
    # RACE from an encoder bundle (the original recipe: length 512, QA 128, lr 1e-5):
    python scripts/run_multiple_choice.py --task=race --train_file=RACE/train \
        --dev_file=RACE/dev --init_checkpoint=/tmp/albert_export --output_dir=/tmp/race \
        --do_train --do_eval --export_saved_model

    # Cosmos QA's CSV (columns context, question, answer0..answer3, label), 20% of the
    # contexts held out as dev:
    python scripts/run_multiple_choice.py --task=generic --train_file=cosmosqa/valid.csv \
        --holdout_fraction=0.2 --init_checkpoint=/tmp/albert_export --output_dir=/tmp/cosmos \
        --do_train --do_eval
"""

from __future__ import annotations

import json

from absl import flags, logging

from albert_tf import cli
from albert_tf.finetune.flags import define_finetune_flags, finetune_config_values
from albert_tf.finetune.multiple_choice.multiple_choice_config import TASKS, MultipleChoiceConfig
from albert_tf.finetune.multiple_choice.run import run_multiple_choice

FLAGS = flags.FLAGS
_DEFAULTS = MultipleChoiceConfig()

flags.DEFINE_enum("task", _DEFAULTS.task, TASKS, "race (RACE folders/files) or generic.")
flags.DEFINE_string("train_file", "", "race: folder, file or glob; generic: .jsonl/.csv file.")
flags.DEFINE_string("dev_file", "", "Dev data, as --train_file.")
flags.DEFINE_string("test_file", "", "Data to predict (answers not needed), as --train_file.")
flags.DEFINE_float(
    "holdout_fraction", 0.0, "Evaluate on this share of --train_file's articles (by hash)."
)
flags.DEFINE_integer("max_qa_length", _DEFAULTS.max_qa_length, "Question+option pieces kept.")
flags.DEFINE_bool(
    "blank_per_underscore", False, "Fill a '_' blank as the original: once per underscore."
)
flags.DEFINE_string("context_column", _DEFAULTS.context_column, "generic: context field.")
flags.DEFINE_string("question_column", _DEFAULTS.question_column, "generic: question field.")
flags.DEFINE_string("options_column", _DEFAULTS.options_column, "generic: options list field.")
flags.DEFINE_list("option_columns", [], "generic: one field per option (default: answer0..).")
flags.DEFINE_string("label_column", _DEFAULTS.label_column, "generic: answer index or letter.")
flags.DEFINE_string("id_column", _DEFAULTS.id_column, "generic: id written with predictions.")
define_finetune_flags(MultipleChoiceConfig)


def config_from_flags(values: flags.FlagValues) -> MultipleChoiceConfig:
    """The `MultipleChoiceConfig` the flags describe."""
    return MultipleChoiceConfig(
        task=values.task,
        train_file=values.train_file,
        dev_file=values.dev_file,
        test_file=values.test_file,
        holdout_fraction=values.holdout_fraction,
        max_qa_length=values.max_qa_length,
        blank_per_underscore=values.blank_per_underscore,
        context_column=values.context_column,
        question_column=values.question_column,
        options_column=values.options_column,
        option_columns=tuple(values.option_columns),
        label_column=values.label_column,
        id_column=values.id_column,
        **finetune_config_values(values),
    )


def main(argv: list[str]) -> None:
    del argv
    results = run_multiple_choice(config_from_flags(FLAGS), FLAGS.output_dir)
    logging.info("Results: %s", results)
    print(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    cli.run(main)
