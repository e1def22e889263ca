"""Fine-tunes ALBERT on a GLUE task or any TSV/CSV file (see albert_tf.finetune.run).

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

from absl import app, flags, logging

from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.finetune.run import run_classifier
from albert_tf.finetune.tasks import PROBLEMS, TASK_NAMES
from albert_tf.training.optimizers import OPTIMIZER_NAMES
from albert_tf.training.precision import PRECISIONS
from albert_tf.training.strategy import STRATEGIES

_DEFAULTS = FinetuneConfig()

# -- data --
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
flags.DEFINE_integer("max_train_examples", 0, "Train on the first N examples only (0: all).")
# -- model --
flags.DEFINE_string(
    "init_checkpoint",
    "",
    "Pretrained encoder: bundle/export dir, encoder.keras, pretraining workdir or ckpt prefix. "
    "Empty: random initialization (needs --albert_config_file).",
)
flags.DEFINE_string("encoder", "", "Alias of --init_checkpoint.")
flags.DEFINE_string("albert_config_file", "", "albert_config.json (random init / checkpoints).")
flags.DEFINE_string("spm_model_file", "", "SentencePiece model (default: the bundle's).")
flags.DEFINE_bool("do_lower_case", True, "Lowercase text (with --spm_model_file).")
flags.DEFINE_integer("max_seq_length", _DEFAULTS.max_seq_length, "Packed length.")
flags.DEFINE_float("dropout_rate", _DEFAULTS.dropout_rate, "Dropout on the pooled output.")
# -- optimization --
flags.DEFINE_enum("optimizer", _DEFAULTS.optimizer, OPTIMIZER_NAMES, "adamw or lamb.")
flags.DEFINE_float("learning_rate", _DEFAULTS.learning_rate, "Peak learning rate.")
flags.DEFINE_float("num_train_epochs", _DEFAULTS.num_train_epochs, "Epochs (may be fractional).")
flags.DEFINE_float("warmup_proportion", _DEFAULTS.warmup_proportion, "Warmup fraction.")
flags.DEFINE_float("weight_decay", _DEFAULTS.weight_decay, "Weight decay (not LayerNorm/bias).")
flags.DEFINE_float("clip_norm", _DEFAULTS.clip_norm, "Global gradient norm clip (0: none).")
flags.DEFINE_integer("train_batch_size", _DEFAULTS.train_batch_size, "Global train batch.")
flags.DEFINE_integer("eval_batch_size", _DEFAULTS.eval_batch_size, "Eval/predict batch.")
flags.DEFINE_integer("seed", _DEFAULTS.seed, "Random seed.")
# -- what to do --
flags.DEFINE_bool("do_train", False, "Fine-tune.")
flags.DEFINE_bool("do_eval", False, "Evaluate on the dev file(s).")
flags.DEFINE_bool("do_predict", False, "Write predictions/<TASK>.tsv for the test file(s).")
flags.DEFINE_bool("export_saved_model", False, "Export a raw-text SavedModel.")
flags.DEFINE_string("output_dir", None, "Where checkpoints, logs, model and results go.")
# -- execution (shared with pretraining) --
flags.DEFINE_enum("strategy", _DEFAULTS.strategy, STRATEGIES, "Distribution strategy.")
flags.DEFINE_string("tpu", "", "TPU name or address (--strategy=tpu).")
flags.DEFINE_enum("precision", _DEFAULTS.precision, PRECISIONS, "Dtype policy.")
flags.DEFINE_bool("jit_compile", False, "Compile the train step with XLA.")
flags.DEFINE_integer("steps_per_execution", 1, "Steps per tf.function call.")
flags.mark_flags_as_required(["output_dir"])


def config_from_flags(values: flags.FlagValues) -> FinetuneConfig:
    """The `FinetuneConfig` the flags describe."""
    if values.encoder and values.init_checkpoint and values.encoder != values.init_checkpoint:
        raise app.UsageError("--encoder and --init_checkpoint differ; pass one of them.")
    return FinetuneConfig(
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
        max_train_examples=values.max_train_examples,
        init_checkpoint=values.init_checkpoint or values.encoder,
        albert_config_file=values.albert_config_file,
        spm_model_file=values.spm_model_file,
        do_lower_case=values.do_lower_case,
        max_seq_length=values.max_seq_length,
        dropout_rate=values.dropout_rate,
        optimizer=values.optimizer,
        learning_rate=values.learning_rate,
        num_train_epochs=values.num_train_epochs,
        warmup_proportion=values.warmup_proportion,
        weight_decay=values.weight_decay,
        clip_norm=values.clip_norm,
        train_batch_size=values.train_batch_size,
        eval_batch_size=values.eval_batch_size,
        seed=values.seed,
        do_train=values.do_train,
        do_eval=values.do_eval,
        do_predict=values.do_predict,
        export_saved_model=values.export_saved_model,
        strategy=values.strategy,
        tpu=values.tpu,
        precision=values.precision,
        jit_compile=values.jit_compile,
        steps_per_execution=values.steps_per_execution,
    )


def main(argv: list[str]) -> None:
    del argv
    try:
        config = config_from_flags(flags.FLAGS)
    except ValueError as error:
        raise app.UsageError(str(error)) from error
    results = run_classifier(config, flags.FLAGS.output_dir)
    logging.info("Results: %s", results)
    print(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    app.run(main)
