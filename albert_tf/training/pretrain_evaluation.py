"""`PretrainEvaluator`: pretraining evaluation, and keeping the best checkpoint in `best/`."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
from collections.abc import Callable
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from albert_tf.atomic_files import atomic_write_text
from albert_tf.errors import UserError
from albert_tf.inputs.pretrain_input import pretrain_dataset
from albert_tf.training.pretrain_config import PretrainConfig
from albert_tf.training.pretrain_step import SUM_NAMES, make_replica_eval_step, metrics_from_sums
from albert_tf.training.record_errors import unreadable_records_error
from albert_tf.training.summaries import write_scalars
from albert_tf.training.worker_files import WorkerFiles


def distributed_eval_function(
    model: keras.Model, strategy: tf.distribute.Strategy, jit_compile: bool
) -> Callable[[Any], tf.Tensor]:
    """`eval(features) -> metric sums` of one distributed eval batch, summed over replicas."""
    replica_eval_step = make_replica_eval_step(model, jit_compile)

    @tf.function(autograph=False)
    def eval_function(features):
        per_replica = strategy.run(replica_eval_step, args=(features,))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    return eval_function


@dataclasses.dataclass
class PretrainEvaluator:
    """Evaluates `model` on `config.eval_file`; keeps the best weights by masked-LM accuracy.

    `best/ckpt-<step>.*` holds the model's weights at the best evaluation so far and
    `best/metrics.json` its metrics (and step); the comparison reads that file, so it
    survives restarts. `name` prefixes the metrics and names the summaries' directory
    (`logs/<name>`); `keep_best=False` only evaluates (e.g. general-domain records beside a
    domain's: `eval_general`).
    """

    config: PretrainConfig
    model: keras.Model
    strategy: tf.distribute.Strategy
    files: WorkerFiles
    name: str = "eval"
    keep_best: bool = True
    # The distributed eval step (`distributed_eval_function`; evaluators of one model share it:
    # one trace, one compile), built on the first evaluation when not given; the dataset.
    eval_function: Any = None
    _eval_dataset: Any = None

    def evaluate_and_keep_best(self, step: int) -> dict[str, float]:
        """Evaluates, logs and writes the summaries; returns `<name>/<metric>` values."""
        metrics = self.evaluate()
        write_scalars(self.files.summary_writer(self.name), metrics, step)
        logging.info(
            "%s at step %d: %s",
            self.name,
            step,
            ", ".join(f"{name} {value:.4f}" for name, value in metrics.items()),
        )
        if self.keep_best:
            self._keep_if_best(metrics, step)
        return {f"{self.name}/{name}": value for name, value in metrics.items()}

    def evaluate(self) -> dict[str, float]:
        """Metrics over at most `max_eval_steps` batches of `eval_file`."""
        if self._eval_dataset is None:
            self._build()
        sums = np.zeros(len(SUM_NAMES))
        steps = 0
        iterator = iter(self._eval_dataset)
        try:
            while steps < self.config.max_eval_steps:
                # get_next_as_optional agrees across workers on the end of data.
                features = iterator.get_next_as_optional()
                if not features.has_value():
                    break
                sums += self.eval_function(features.get_value()).numpy()
                steps += 1
        except tf.errors.DataLossError as e:
            raise unreadable_records_error(self.config.eval_file, e) from e
        if steps == 0:
            raise UserError(
                f"--eval_file {self.config.eval_file!r} holds fewer records than one eval batch "
                f"({self.config.eval_batch_size}); lower --eval_batch_size."
            )
        return metrics_from_sums(sums, self.config.sentence_order_loss_weight)

    def _build(self) -> None:
        if self.eval_function is None:
            self.eval_function = distributed_eval_function(
                self.model, self.strategy, self.config.jit_compile
            )
        self._eval_dataset = self.strategy.distribute_datasets_from_function(self._dataset)

    def _dataset(self, context: tf.distribute.InputContext) -> tf.data.Dataset:
        c = self.config  # One deterministic pass (is_training=False) per pipeline.
        shape = (c.eval_batch_size, c.max_seq_length, c.max_predictions_per_seq)
        return pretrain_dataset(c.eval_file, *shape, is_training=False, input_context=context)

    def _keep_if_best(self, metrics: dict[str, float], step: int) -> None:
        best_dir = os.path.join(self.files.workdir, "best")
        best_file = os.path.join(best_dir, "metrics.json")
        best = -math.inf
        if tf.io.gfile.exists(best_file):
            with tf.io.gfile.GFile(best_file) as f:
                best = json.load(f)["masked_lm_accuracy"]
        if metrics["masked_lm_accuracy"] <= best:
            return
        with self.files.write_location(best_dir) as directory:
            manager = tf.train.CheckpointManager(
                tf.train.Checkpoint(model=self.model),
                directory,
                max_to_keep=1,
                checkpoint_name="ckpt",
            )
            path = manager.save(checkpoint_number=step)
        if self.files.is_chief:
            atomic_write_text(best_file, json.dumps({**metrics, "step": step}, indent=2))
            logging.info(
                "New best masked_lm_accuracy %.4f: %s.", metrics["masked_lm_accuracy"], path
            )
