"""Multiple-choice examples -> a `tf.data.Dataset` of (features, label), one per question.

Options are padded with "" to the widest question of the set (a padding option packs to zeros
and gets no probability), then `ChoiceFeatures` encodes them in the input pipeline, once
(cached); batching is every family's (`albert_tf.finetune.datasets`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import tensorflow as tf

from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures
from albert_tf.finetune.multiple_choice.examples import MultipleChoiceExample

_FEATURIZE_BATCH = 64


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
    dataset = dataset.batch(_FEATURIZE_BATCH).map(
        lambda *texts: features(list(texts)), num_parallel_calls=tf.data.AUTOTUNE
    )
    dataset = dataset.unbatch()
    if with_labels:
        labels = np.array([example.label for example in examples], np.int32)
        dataset = tf.data.Dataset.zip((dataset, tf.data.Dataset.from_tensor_slices(labels)))
    return dataset.cache()
