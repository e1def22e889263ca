"""Fine-tunes ALBERT for extractive QA on SQuAD v1.1 / v2.0 (see albert_tf.finetune.span_qa).

Examples:
    # SQuAD v2.0 from an encoder bundle; predictions and official scores for the dev file:
    python scripts/run_squad.py --train_file=train-v2.0.json --predict_file=dev-v2.0.json \
        --version_2_with_negative --init_checkpoint=/tmp/albert_export --output_dir=/tmp/squad2 \
        --do_train --do_predict --export_saved_model

    # Predict another file with a finished run (a v1.1 file is answered without no-answers):
    python scripts/run_squad.py --predict_file=xquad.en.json --version_2_with_negative \
        --output_dir=/tmp/squad2 --do_predict
"""

from __future__ import annotations

import json

from absl import flags, logging

from albert_tf import cli
from albert_tf.finetune.flags import define_finetune_flags, finetune_config_values
from albert_tf.finetune.span_qa.run import run_squad
from albert_tf.finetune.span_qa.squad_config import SquadConfig

FLAGS = flags.FLAGS
_DEFAULTS = SquadConfig()

flags.DEFINE_string("train_file", "", "SQuAD JSON to train on.")
flags.DEFINE_string("predict_file", "", "SQuAD JSON file(s) to predict and score, comma-separated.")
flags.DEFINE_bool("version_2_with_negative", False, "SQuAD v2.0: questions may have no answer.")
flags.DEFINE_integer("doc_stride", _DEFAULTS.doc_stride, "Pieces between context windows.")
flags.DEFINE_integer("max_query_length", _DEFAULTS.max_query_length, "Question pieces kept.")
flags.DEFINE_integer("n_best_size", _DEFAULTS.n_best_size, "Answers in nbest_predictions.json.")
flags.DEFINE_integer("max_answer_length", _DEFAULTS.max_answer_length, "Longest answer (pieces).")
flags.DEFINE_float(
    "null_score_diff_threshold",
    None,
    "v2: answer '' when null score - best span score exceeds this (default: chosen on dev).",
)
define_finetune_flags(SquadConfig)


def config_from_flags(values: flags.FlagValues) -> SquadConfig:
    """The `SquadConfig` the flags describe."""
    return SquadConfig(
        train_file=values.train_file,
        predict_file=values.predict_file,
        version_2_with_negative=values.version_2_with_negative,
        doc_stride=values.doc_stride,
        max_query_length=values.max_query_length,
        n_best_size=values.n_best_size,
        max_answer_length=values.max_answer_length,
        null_score_diff_threshold=values.null_score_diff_threshold,
        **finetune_config_values(values),
    )


def main(argv: list[str]) -> None:
    del argv
    results = run_squad(config_from_flags(FLAGS), FLAGS.output_dir)
    logging.info("Results: %s", results)
    print(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    cli.run(main)
