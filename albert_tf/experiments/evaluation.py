"""Intrinsic evaluation of a cell: MLM, NSP and SOP accuracy on held-out records.

Every cell is evaluated the same way, whatever it trained on (the paper's Table 5
cross-evaluation), on the eval records built from the held-out text:

* MLM accuracy: the MLM head on the masked positions of the SOP eval records.
* Sentence head ("head" columns): the cell's own sentence head, trained on NSP or SOP,
  applied to NSP records and to SOP records (label 1 = "random B" resp. "swapped"), as the
  paper evaluates an NSP-trained model on SOP. An MLM-only cell has no trained head: NaN.
* Linear probe ("probe" columns, every cell, same recipe): logistic regression
  (`LinearProbe`) on the frozen pooled output, fit on the first `probe_records` eval
  records of that objective and scored on the next `eval_records`.

Standard errors are binomial, sqrt(p (1 - p) / n), n = scored records (for MLM: masked
tokens, which are not independent, so its SE is optimistic).
"""

from __future__ import annotations

import math

import numpy as np
import tensorflow as tf
from keras import ops

from albert_tf.experiments.linear_probe import LinearProbe
from albert_tf.experiments.scale import ExperimentScale
from albert_tf.inputs.pretrain_input import pretrain_dataset
from albert_tf.models.pretrainer import AlbertPretrainer

EVAL_BATCH_SIZE = 64


def binomial_standard_error(accuracy: float, count: int) -> float:
    """sqrt(p (1 - p) / n); NaN when there is nothing to count.

    >>> round(binomial_standard_error(0.5, 100), 3)
    0.05
    """
    if count <= 0 or math.isnan(accuracy):
        return math.nan
    return math.sqrt(accuracy * (1.0 - accuracy) / count)


def _output_function(model: AlbertPretrainer):
    """A `tf.function` of one batch's MLM hits, sentence-head predictions and pooled output
    (a graph: eager Keras calls made evaluation take as long as training)."""

    @tf.function
    def outputs(features: dict) -> dict:
        encoded = model.encoder.call_at_positions(
            {
                "input_word_ids": features["input_ids"],
                "input_mask": features["input_mask"],
                "input_type_ids": features["segment_ids"],
            },
            features["masked_lm_positions"],
            training=False,
        )
        mlm_logits = model.masked_lm_head(encoded["sequence_output"])
        head_logits = model.sentence_order_head(encoded["pooled_output"])
        predicted = ops.cast(ops.argmax(mlm_logits, axis=-1), "int32")
        hits = predicted == ops.cast(features["masked_lm_ids"], "int32")
        return {
            "mlm_correct": ops.cast(hits, "float32"),
            "head_prediction": ops.argmax(head_logits, axis=-1),
            "pooled": encoded["pooled_output"],
        }

    return outputs


def _eval_dataset(pattern: str, scale: ExperimentScale) -> tf.data.Dataset:
    """The records of `pattern` in file order, in batches of `EVAL_BATCH_SIZE`."""
    return pretrain_dataset(
        pattern,
        global_batch_size=EVAL_BATCH_SIZE,
        max_seq_length=scale.max_seq_length,
        max_predictions_per_seq=scale.max_predictions_per_seq,
        is_training=False,
    )


def collect_outputs(
    model: AlbertPretrainer, pattern: str, scale: ExperimentScale, num_records: int
) -> dict[str, np.ndarray]:
    """The model's outputs on the first `num_records` records of `pattern` (file order)."""
    batches: dict[str, list[np.ndarray]] = {}
    seen = 0
    output_function = _output_function(model)
    for features in _eval_dataset(pattern, scale):
        outputs = {name: value.numpy() for name, value in output_function(features).items()}
        outputs["labels"] = features["next_sentence_labels"].numpy().reshape(-1)
        outputs["mlm_weights"] = features["masked_lm_weights"].numpy()
        for name, value in outputs.items():
            batches.setdefault(name, []).append(value)
        seen += len(outputs["labels"])
        if seen >= num_records:
            break
    return {name: np.concatenate(values)[:num_records] for name, values in batches.items()}


def _split(outputs: dict[str, np.ndarray], first: int) -> tuple[dict, dict]:
    return (
        {name: value[:first] for name, value in outputs.items()},
        {name: value[first:] for name, value in outputs.items()},
    )


def evaluate_model(
    model: AlbertPretrainer,
    eval_patterns: dict[str, str],
    scale: ExperimentScale,
    has_sentence_head: bool,
) -> dict[str, float]:
    """Metrics (fractions) and their standard errors; `eval_patterns` by objective.

    Keys: `mlm_accuracy`, `{nsp,sop}_head_accuracy`, `{nsp,sop}_probe_accuracy`, each
    with `_se`, and `{objective}_eval_records`.
    """
    metrics: dict[str, float] = {}
    wanted = scale.probe_records + scale.eval_records
    for objective, pattern in eval_patterns.items():
        outputs = collect_outputs(model, pattern, scale, wanted)
        if len(outputs["labels"]) <= scale.probe_records:
            raise ValueError(
                f"{pattern}: {len(outputs['labels'])} eval records, fewer than the probe's "
                f"{scale.probe_records} plus some to score; use a longer eval text or lower "
                "probe_records."
            )
        probe_part, scored = _split(outputs, scale.probe_records)
        count = len(scored["labels"])
        metrics[f"{objective}_eval_records"] = float(count)
        head = math.nan
        if has_sentence_head:
            head = float(np.mean(scored["head_prediction"] == scored["labels"]))
        probe = LinearProbe().fit(probe_part["pooled"], probe_part["labels"])
        probe_accuracy = probe.accuracy(scored["pooled"], scored["labels"])
        for name, value in (("head", head), ("probe", probe_accuracy)):
            metrics[f"{objective}_{name}_accuracy"] = value
            metrics[f"{objective}_{name}_accuracy_se"] = binomial_standard_error(value, count)
        if objective == "sop":
            weights = scored["mlm_weights"]
            tokens = float(weights.sum())
            accuracy = float((scored["mlm_correct"] * weights).sum() / max(tokens, 1.0))
            metrics["mlm_accuracy"] = accuracy
            metrics["mlm_accuracy_se"] = binomial_standard_error(accuracy, int(tokens))
    return metrics


def load_pretrainer(model: AlbertPretrainer, workdir: str) -> str:
    """Reads the newest checkpoint of a pretraining `workdir` into `model`."""
    prefix = tf.train.latest_checkpoint(workdir)
    if prefix is None:
        raise ValueError(f"{workdir}: no pretraining checkpoint to evaluate.")
    tf.train.Checkpoint(model=model).read(prefix).expect_partial()
    return prefix


def majority_baselines(eval_patterns: dict[str, str], scale: ExperimentScale) -> dict[str, float]:
    """Per objective, the accuracy of always answering the most frequent label on the
    records `evaluate_model` scores: the chance level the sentence columns compare with."""
    baselines = {}
    for objective, pattern in eval_patterns.items():
        labels = []
        for features in _eval_dataset(pattern, scale):
            labels.append(features["next_sentence_labels"].numpy().reshape(-1))
            if sum(map(len, labels)) >= scale.probe_records + scale.eval_records:
                break
        scored = np.concatenate(labels)[
            scale.probe_records : scale.probe_records + scale.eval_records
        ]
        share = float(np.mean(scored)) if len(scored) else math.nan
        baselines[objective] = max(share, 1.0 - share)
    return baselines
