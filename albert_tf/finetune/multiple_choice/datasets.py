"""Multiple-choice examples -> a `tf.data.Dataset` of (features, label), one per question.

Options are padded with "" to the widest question of the set (a padding option packs to zeros
and gets no probability), then `ChoiceFeatures` encodes them in the input pipeline, once
(cached); batching is every family's (`albert_tf.finetune.datasets`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import tensorflow as tf

from albert_tf.finetune.datasets import traced_once
from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures
from albert_tf.finetune.multiple_choice.examples import MultipleChoiceExample

_FEATURIZE_BATCH = 64
# context [B], question [B], options [B, N]
_TEXT_COLUMNS = (
    tf.TensorSpec([None], tf.string),
    tf.TensorSpec([None], tf.string),
    tf.TensorSpec([None, None], tf.string),
)


def padded_options(examples: Sequence[MultipleChoiceExample]) -> np.ndarray:
    """Option texts `[len(examples), widest]`, "" where a question has fewer."""
    width = max(len(example.options) for example in examples)
    return np.array(
        [list(example.options) + [""] * (width - len(example.options)) for example in examples],
        dtype=object,
    )


def featurized_questions(
    examples: Sequence[MultipleChoiceExample], features: ChoiceFeatures, with_labels: bool = True
) -> tf.data.Dataset:
    """One `(features [N, L], label)` element per question (`features` alone without labels)."""
    columns = (
        tf.constant([example.context for example in examples]),
        tf.constant([example.question for example in examples]),
        tf.constant(padded_options(examples).tolist()),
    )
    dataset = tf.data.Dataset.from_tensor_slices(columns)
    featurize = traced_once(features, _TEXT_COLUMNS)
    dataset = dataset.batch(_FEATURIZE_BATCH).map(featurize, num_parallel_calls=tf.data.AUTOTUNE)
    dataset = dataset.unbatch()
    if with_labels:
        labels = np.array([example.label for example in examples], np.int32)
        dataset = tf.data.Dataset.zip((dataset, tf.data.Dataset.from_tensor_slices(labels)))
    return dataset.cache()
