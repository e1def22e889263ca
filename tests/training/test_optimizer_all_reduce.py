"""Fails loudly when Keras changes the private all-reduce that pretraining switches off.

Runs in a process of its own, forked before TensorFlow initializes (`tests.commands`): two
logical CPUs must be set before it does.
"""

from __future__ import annotations

import json
import sys
import textwrap

import keras
import pytest

from albert_tf.training.optimizer_all_reduce import disable_optimizer_all_reduce
from tests import commands

# Under MirroredStrategy(2), every replica applies the (already all-reduced)
# gradient 1.0 with SGD(lr=1) to a variable at 0; prints the value afterwards,
# with Keras's own all-reduce on and off.
_CHILD = textwrap.dedent(
    """
    import json
    import keras, tensorflow as tf
    from albert_tf.training.strategy import configure_logical_cpus
    configure_logical_cpus(2)
    from albert_tf.training.optimizer_all_reduce import disable_optimizer_all_reduce

    def update(disable):
        strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
        with strategy.scope():
            variable = keras.Variable(0.0)
            optimizer = keras.optimizers.SGD(1.0)
            optimizer.build([variable])
        if disable:
            disable_optimizer_all_reduce(optimizer)

        @tf.function
        def step():
            strategy.run(lambda: optimizer.apply([tf.constant(1.0)], [variable]))

        step()
        return float(variable.numpy())

    print("RESULT", json.dumps({"keras": update(False), "disabled": update(True)}))
    """
)


@pytest.mark.slow  # A subprocess with TensorFlow.
def test_keras_sums_over_replicas_inside_apply_and_the_switch_stops_it():
    process = commands.run([sys.executable, "-c", _CHILD], timeout=300, preloaded=True)
    assert process.returncode == 0, process.stderr[-4000:]
    line = [line for line in process.stdout.splitlines() if line.startswith("RESULT ")][-1]
    result = json.loads(line[len("RESULT ") :])
    # If this fails, Keras no longer all-reduces inside `apply`: the switch (and
    # albert_tf/training/optimizer_all_reduce.py) can go, or needs a new hook.
    assert result["keras"] == -2.0, result
    # If this fails, the switch no longer works: gradients would be summed twice.
    assert result["disabled"] == -1.0, result


def test_a_keras_without_the_attribute_is_refused():
    class Plain:  # stands for an optimizer of a Keras release without the attribute
        pass

    with pytest.raises(RuntimeError, match="_all_reduce_sum_gradients"):
        disable_optimizer_all_reduce(Plain())


def test_a_loss_scale_optimizer_is_switched_through_its_inner_optimizer():
    optimizer = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(1.0))
    disable_optimizer_all_reduce(optimizer)
    pairs = [("g", "v")]
    assert optimizer.inner_optimizer._all_reduce_sum_gradients(pairs) == pairs
