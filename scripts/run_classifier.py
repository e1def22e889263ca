"""Fine-tunes ALBERT on a GLUE task or any TSV/CSV file (see albert_tf.finetune.classification).

Examples:
    # GLUE RTE from an encoder bundle (export dir or pretraining output with its tokenizer):
    python scripts/run_classifier.py --task=rte --data_dir=glue/RTE \
        --init_checkpoint=/tmp/albert_export --output_dir=/tmp/rte --do_train --do_eval

    # Any TSV: a header with "review" and "stars" columns, labels read from train.tsv:
    python scripts/run_classifier.py --task=tsv --data_dir=reviews --text_a_column=review \
        --label_column=stars --init_checkpoint=/tmp/albert_export --output_dir=/tmp/reviews
"""

from __future__ import annotations

import json

from absl import flags, logging

from albert_tf import cli
from albert_tf.finetune.classification.classification_config import ClassificationConfig
from albert_tf.finetune.classification.run import run_classifier
from albert_tf.finetune.classification.tasks import PROBLEMS, TASK_NAMES
from albert_tf.finetune.flags import define_finetune_flags, finetune_config_values

FLAGS = flags.FLAGS
_DEFAULTS = ClassificationConfig()

flags.DEFINE_enum("task", _DEFAULTS.task, TASK_NAMES, "GLUE task, or tsv/csv (generic files).")
flags.DEFINE_string("data_dir", "", "Directory of the task's train/dev/test files.")
flags.DEFINE_string("train_file", "", "Train file name (or path); default: the task's.")
flags.DEFINE_string("dev_file", "", "Dev file name (or path); default: the task's.")
flags.DEFINE_string("test_file", "", "File to predict (or path); default: the task's test.")
flags.DEFINE_string("text_a_column", "", "tsv/csv: header name or 0-based position of text A.")
flags.DEFINE_string("text_b_column", "", "tsv/csv: column of text B (pair tasks).")
flags.DEFINE_string("label_column", "", "tsv/csv: column of the label.")
flags.DEFINE_string("index_column", "", "tsv/csv: id column written with predictions.")
flags.DEFINE_bool("has_header", True, "tsv/csv: the first line names the columns.")
flags.DEFINE_enum("problem", _DEFAULTS.problem, PROBLEMS, "tsv/csv: what the label is.")
flags.DEFINE_list("labels", [], "tsv/csv classification: class names (default: from train).")
define_finetune_flags(ClassificationConfig)


def config_from_flags(values: flags.FlagValues) -> ClassificationConfig:
    """The `ClassificationConfig` the flags describe."""
    return ClassificationConfig(
        task=values.task,
        data_dir=values.data_dir,
        train_file=values.train_file,
        dev_file=values.dev_file,
        test_file=values.test_file,
        text_a_column=values.text_a_column,
        text_b_column=values.text_b_column,
        label_column=values.label_column,
        index_column=values.index_column,
        has_header=values.has_header,
        problem=values.problem,
        labels=tuple(values.labels),
        **finetune_config_values(values),
    )


def main(argv: list[str]) -> None:
    del argv
    results = run_classifier(config_from_flags(FLAGS), FLAGS.output_dir)
    logging.info("Results: %s", results)
    print(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    cli.run(main)
