"""`NewRowsOnly`: for the first steps, train only the embedding rows a grown vocabulary added.

After `albert-tf convert --grow_vocabulary`, rows V .. V+N-1 of the word embedding and of the
masked-LM output bias (`albert_tf.models.vocabulary_rows`) start as means of old rows.
Training them alone first lets them settle while every pretrained weight stays put, so the
first, crude gradients through them do not move the rest of the model (`--new_rows_only_steps`).

Done inside the train step, as tensors: while `optimizer.iterations < steps`,

* the gradients are masked to the new rows (zero elsewhere, so nothing else enters the
  global-norm clip or the optimizer's moments), and
* after the optimizer's update, every other value is put back (weight decay, and momentum
  from nothing, would otherwise move weights whose gradient is zero).

The phase is a boolean tensor of the step counter, not a Python branch: the step keeps static
shapes and compiles with XLA (tested with `jit_compile=True`).

Illustration (not run):
    rows = NewRowsOnly.for_pretrainer(model, first_new_row=30000, steps=500)
    frozen = rows.active(optimizer.iterations)
    gradients = rows.mask_gradients(gradients, frozen)
"""

from __future__ import annotations

import dataclasses

import tensorflow as tf

from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.models.vocabulary_rows import vocabulary_weights


@dataclasses.dataclass(frozen=True)
class NewRowsOnly:
    """Which rows of which variables train during the first `steps` steps.

    Attributes:
        variables: the variables the step updates (the model's trainable variables).
        first_rows: per variable, the first row that trains in the phase; a variable that
            does not train in it has its row count (no row).
        steps: the length of the phase, in optimizer updates.
    """

    variables: tuple
    first_rows: tuple[int, ...]
    steps: int

    @classmethod
    def for_pretrainer(cls, model: AlbertPretrainer, first_new_row: int, steps: int) -> NewRowsOnly:
        """The rows from `first_new_row` on of the vocabulary weights (`vocabulary_weights`:
        the word embedding and the MLM output bias) train."""
        variables = tuple(model.trainable_variables)
        rows = {weight.path for weight in vocabulary_weights(model)}
        first_rows = tuple(
            first_new_row if variable.path in rows else int(variable.shape[0])
            for variable in variables
        )
        return cls(variables, first_rows, steps)

    def active(self, iterations: tf.Tensor) -> tf.Tensor:
        """Bool scalar: whether the update about to be made is one of the phase's."""
        return tf.less(tf.cast(iterations, tf.int64), self.steps)

    def _keep(self, variable, first_row: int, active: tf.Tensor) -> tf.Tensor:
        """Bool, broadcastable to `variable`: where it changes in this update."""
        rows = tf.range(variable.shape[0]) >= first_row
        rows = tf.reshape(rows, [-1] + [1] * (len(variable.shape) - 1))
        return tf.logical_or(tf.logical_not(active), rows)

    def mask_gradients(self, gradients: list[tf.Tensor], active: tf.Tensor) -> list[tf.Tensor]:
        """`gradients` (of `variables`, dense) zeroed where the phase keeps the values."""
        return [
            tf.where(self._keep(variable, first, active), gradient, tf.zeros_like(gradient))
            for variable, first, gradient in zip(
                self.variables, self.first_rows, gradients, strict=True
            )
        ]

    def snapshot(self) -> list[tf.Tensor]:
        """The variables' values before the update."""
        return [tf.identity(variable.value) for variable in self.variables]

    def restore(self, before: list[tf.Tensor], active: tf.Tensor) -> None:
        """Puts back `before` wherever the phase keeps the values.

        Called in the replica context of the step: the assignment goes through `merge_call`
        and `extended.update`, as the optimizer's own does, so mirrored variables take it too.
        """
        values = [
            tf.where(self._keep(variable, first, active), variable.value, value)
            for variable, first, value in zip(self.variables, self.first_rows, before, strict=True)
        ]

        def assign(strategy: tf.distribute.Strategy, values: list) -> None:
            for variable, value in zip(self.variables, values, strict=True):
                strategy.extended.update(  # on the tf.Variable, as Keras's optimizer does
                    variable.value, lambda var, new: var.assign(new), args=(value,), group=False
                )

        tf.distribute.get_replica_context().merge_call(assign, args=(values,))
