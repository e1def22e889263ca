"""Tests for albert_tf.training.lamb against a NumPy port of the original update."""

from __future__ import annotations

import re

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.training.lamb import Lamb
from albert_tf.training.schedules import WarmupPolynomialDecay

ORIGINAL_EXCLUSIONS = ("LayerNorm", "layer_norm", "bias")

# (name scope, leaf name, shape); the zero kernel exercises the ||w|| = 0 branch.
VARIABLE_SPECS = (
    ("dense", "kernel", (3, 4)),
    ("dense", "bias", (4,)),
    ("encoder/LayerNorm", "gamma", (4,)),
    ("encoder/attention_layer_norm", "beta", (4,)),
    ("word_embeddings", "embeddings", (5, 3)),
    ("pooler", "kernel", (2, 2)),
)


def scoped_variable(scopes: list[str], value: np.ndarray, name: str) -> keras.Variable:
    """A variable created under nested name scopes, so its path is `scopes/name`."""
    if not scopes:
        return keras.Variable(value, name=name)
    with keras.name_scope(scopes[0]):
        return scoped_variable(scopes[1:], value, name)


def make_variables(seed: int = 0) -> list[keras.Variable]:
    """Fresh Keras variables whose paths look like the model's."""
    rng = np.random.default_rng(seed)
    variables = []
    for scope, leaf, shape in VARIABLE_SPECS:
        value = rng.normal(size=shape).astype("float32")
        if scope == "pooler":
            value = np.zeros(shape, "float32")
        variables.append(scoped_variable(scope.split("/"), value, leaf))
    return variables


def make_gradients(num_steps: int, seed: int = 1) -> list[list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [
        [rng.normal(size=shape).astype("float32") for _, _, shape in VARIABLE_SPECS]
        for _ in range(num_steps)
    ]


def numpy_lamb(
    weights: list[np.ndarray],
    gradient_steps: list[list[np.ndarray]],
    paths: list[str],
    learning_rates: list[float],
    beta_1: float = 0.9,
    beta_2: float = 0.999,
    epsilon: float = 1e-6,
    weight_decay_rate: float = 0.01,
    exclude_from_weight_decay=ORIGINAL_EXCLUSIONS,
    exclude_from_layer_adaptation=None,
    bias_correction: bool = False,
) -> list[np.ndarray]:
    """Original ALBERT lamb_optimizer.py, in float64 NumPy, over several steps."""
    if exclude_from_layer_adaptation is None:
        exclude_from_layer_adaptation = exclude_from_weight_decay
    weights = [w.astype("float64") for w in weights]
    ms = [np.zeros_like(w) for w in weights]
    vs = [np.zeros_like(w) for w in weights]
    for step, (grads, lr) in enumerate(zip(gradient_steps, learning_rates, strict=True), start=1):
        for i, (grad, path) in enumerate(zip(grads, paths, strict=True)):
            ms[i] = beta_1 * ms[i] + (1 - beta_1) * grad
            vs[i] = beta_2 * vs[i] + (1 - beta_2) * grad**2
            m, v = ms[i], vs[i]
            if bias_correction:
                m = m / (1 - beta_1**step)
                v = v / (1 - beta_2**step)
            update = m / (np.sqrt(v) + epsilon)
            if weight_decay_rate and not any(re.search(p, path) for p in exclude_from_weight_decay):
                update = update + weight_decay_rate * weights[i]
            ratio = 1.0
            if not any(re.search(p, path) for p in exclude_from_layer_adaptation):
                w_norm = np.linalg.norm(weights[i])
                u_norm = np.linalg.norm(update)
                if w_norm > 0 and u_norm > 0:
                    ratio = w_norm / u_norm
            weights[i] = weights[i] - lr * ratio * update
    return weights


def run_optimizer(optimizer, variables, gradient_steps) -> list[np.ndarray]:
    for grads in gradient_steps:
        optimizer.apply([tf.constant(g) for g in grads], variables)
    return [v.numpy() for v in variables]


def assert_all_close(actual, expected, tolerance=1e-6):
    for a, e in zip(actual, expected, strict=True):
        np.testing.assert_allclose(a, e, rtol=tolerance, atol=tolerance)


def test_paths_carry_the_original_names():
    paths = [v.path for v in make_variables()]
    assert paths[1] == "dense/bias"
    assert paths[2] == "encoder/LayerNorm/gamma"


def test_exclusion_decisions_follow_paths():
    variables = make_variables()
    optimizer = Lamb(exclude_from_layer_adaptation=["embeddings"])
    optimizer.build(variables)
    assert optimizer._uses_weight_decay == (True, False, False, False, True, True)
    assert optimizer._uses_layer_adaptation == (True, True, True, True, False, True)


def test_one_step_matches_numpy():
    variables = make_variables()
    initial = [v.numpy() for v in variables]
    grads = make_gradients(1)
    actual = run_optimizer(Lamb(learning_rate=0.01), variables, grads)
    expected = numpy_lamb(initial, grads, [v.path for v in variables], [0.01])
    assert_all_close(actual, expected)
    # The step changed every variable, so the comparison is not vacuous.
    assert all(not np.allclose(a, w) for a, w in zip(actual, initial, strict=True))


@pytest.mark.parametrize("bias_correction", [False, True])
def test_several_steps_with_schedule_match_numpy(bias_correction):
    schedule = WarmupPolynomialDecay(0.05, decay_steps=10, warmup_steps=2)
    variables = make_variables()
    initial = [v.numpy() for v in variables]
    grads = make_gradients(5)
    optimizer = Lamb(learning_rate=schedule, bias_correction=bias_correction)
    actual = run_optimizer(optimizer, variables, grads)
    rates = [float(schedule(step)) for step in range(5)]
    expected = numpy_lamb(
        initial, grads, [v.path for v in variables], rates, bias_correction=bias_correction
    )
    assert_all_close(actual, expected)


def test_bias_correction_changes_the_result():
    grads = make_gradients(2)
    plain = run_optimizer(Lamb(learning_rate=0.01), make_variables(), grads)
    corrected = run_optimizer(
        Lamb(learning_rate=0.01, bias_correction=True), make_variables(), grads
    )
    # Excluded (non-adapted) variables see the unscaled update, so the
    # correction is visible there.
    assert not np.allclose(plain[1], corrected[1], atol=1e-5)


def test_separate_layer_adaptation_patterns_match_numpy():
    variables = make_variables()
    initial = [v.numpy() for v in variables]
    grads = make_gradients(3)
    optimizer = Lamb(learning_rate=0.01, weight_decay_rate=0.1, exclude_from_layer_adaptation=[])
    actual = run_optimizer(optimizer, variables, grads)
    expected = numpy_lamb(
        initial,
        grads,
        [v.path for v in variables],
        [0.01] * 3,
        weight_decay_rate=0.1,
        exclude_from_layer_adaptation=(),
    )
    assert_all_close(actual, expected)


def test_without_decay_and_exclusions_equals_keras_lamb():
    grads = make_gradients(4)
    ours = run_optimizer(
        Lamb(
            learning_rate=0.01,
            weight_decay_rate=0.0,
            exclude_from_weight_decay=(),
            bias_correction=True,
            epsilon=1e-6,
        ),
        make_variables(),
        grads,
    )
    reference = run_optimizer(
        keras.optimizers.Lamb(learning_rate=0.01, epsilon=1e-6), make_variables(), grads
    )
    assert_all_close(ours, reference)


def test_global_clipnorm_clips_before_the_update():
    grads = [[10.0 * g for g in step] for step in make_gradients(2)]
    clipped = []
    for step in grads:
        norm = np.sqrt(sum(np.sum(g.astype("float64") ** 2) for g in step))
        clipped.append([(g * (1.0 / norm)).astype("float32") for g in step])
    with_clipping = run_optimizer(
        Lamb(learning_rate=0.01, global_clipnorm=1.0), make_variables(), grads
    )
    on_clipped = run_optimizer(Lamb(learning_rate=0.01), make_variables(), clipped)
    assert_all_close(with_clipping, on_clipped)


def test_gradient_accumulation_equals_averaged_gradients():
    steps = 3
    grads = make_gradients(2 * steps)
    averaged = [
        [np.mean([grads[k][i] for k in range(start, start + steps)], axis=0) for i in range(6)]
        for start in (0, steps)
    ]
    accumulating = Lamb(learning_rate=0.01, bias_correction=True, gradient_accumulation_steps=steps)
    variables = make_variables()
    initial = [v.numpy() for v in variables]
    partial = run_optimizer(accumulating, variables, grads[: steps - 1])
    assert_all_close(partial, initial, tolerance=0.0)  # no update before k batches
    accumulated = run_optimizer(accumulating, variables, grads[steps - 1 :])
    direct = run_optimizer(
        Lamb(learning_rate=0.01, bias_correction=True), make_variables(), averaged
    )
    assert int(accumulating.iterations) == 2
    assert_all_close(accumulated, direct, tolerance=2e-6)


def test_loss_scale_optimizer_unscales_gradients():
    grads = make_gradients(2)
    wrapped = keras.optimizers.LossScaleOptimizer(Lamb(learning_rate=0.01), initial_scale=1024.0)
    scaled = [[1024.0 * g for g in step] for step in grads]
    actual = run_optimizer(wrapped, make_variables(), scaled)
    expected = run_optimizer(Lamb(learning_rate=0.01), make_variables(), grads)
    assert_all_close(actual, expected)


def test_indexed_slices_gradient_is_densified():
    dense_variable = keras.Variable(np.ones((4, 2), "float32"), name="embeddings")
    sparse_variable = keras.Variable(np.ones((4, 2), "float32"), name="embeddings")
    rows = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    sparse = tf.IndexedSlices(rows, tf.constant([0, 2]), tf.constant([4, 2]))
    Lamb(learning_rate=0.1).apply([tf.convert_to_tensor(sparse)], [dense_variable])
    Lamb(learning_rate=0.1).apply([sparse], [sparse_variable])
    np.testing.assert_allclose(sparse_variable.numpy(), dense_variable.numpy(), atol=1e-7)
    assert not np.allclose(dense_variable.numpy(), 1.0)


def test_step_under_xla_matches_eager():
    inputs = keras.Input((3,))
    hidden = keras.layers.Dense(4, name="dense")(inputs)
    outputs = keras.layers.LayerNormalization(name="layer_norm")(hidden)
    model = keras.Model(inputs, outputs)
    initial = [v.numpy() for v in model.trainable_variables]
    features = tf.constant(np.random.default_rng(0).normal(size=(8, 3)).astype("float32"))
    schedule = WarmupPolynomialDecay(0.01, decay_steps=10, warmup_steps=1)

    def train_step(optimizer):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(features) ** 2 * tf.range(4, dtype=tf.float32))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply(grads, model.trainable_variables)

    xla_optimizer = Lamb(learning_rate=schedule, global_clipnorm=1.0)
    compiled = tf.function(lambda: train_step(xla_optimizer), jit_compile=True)
    for _ in range(3):
        compiled()
    from_xla = [v.numpy() for v in model.trainable_variables]

    for variable, value in zip(model.trainable_variables, initial, strict=True):
        variable.assign(value)
    eager_optimizer = Lamb(learning_rate=schedule, global_clipnorm=1.0)
    for _ in range(3):
        train_step(eager_optimizer)
    assert_all_close(from_xla, [v.numpy() for v in model.trainable_variables], tolerance=1e-5)
    assert not np.allclose(from_xla[0], initial[0])


def test_mirrored_strategy_step_matches_numpy():
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    with strategy.scope():
        variables = make_variables()
        optimizer = Lamb(learning_rate=0.01)
        optimizer.build(variables)
    initial = [v.numpy() for v in variables]
    grads = make_gradients(2)

    @tf.function
    def distributed_step(step_grads):
        def replica_step(step_grads):
            # Gradients must come from the replica's tape (they carry its device).
            with tf.GradientTape() as tape:
                products = [v * g for v, g in zip(variables, step_grads, strict=True)]
                loss = tf.add_n([tf.reduce_sum(p) for p in products])
            optimizer.apply(tape.gradient(loss, variables), variables)

        strategy.run(replica_step, args=(step_grads,))

    for step_grads in grads:
        distributed_step([tf.constant(g) for g in step_grads])
    expected = numpy_lamb(initial, grads, [v.path for v in variables], [0.01, 0.01])
    assert_all_close([v.numpy() for v in variables], expected)


def test_config_round_trip_with_schedule():
    schedule = WarmupPolynomialDecay(0.00176, decay_steps=125_000, warmup_steps=3125)
    optimizer = Lamb(
        learning_rate=schedule,
        epsilon=1e-5,
        weight_decay_rate=0.02,
        exclude_from_weight_decay=["bias"],
        exclude_from_layer_adaptation=["LayerNorm"],
        bias_correction=True,
        global_clipnorm=1.0,
        gradient_accumulation_steps=4,
    )
    restored = keras.optimizers.deserialize(keras.optimizers.serialize(optimizer))
    assert isinstance(restored, Lamb)
    assert isinstance(restored._learning_rate, WarmupPolynomialDecay)
    assert restored._learning_rate.get_config() == schedule.get_config()
    assert restored.get_config() == optimizer.get_config()
    assert restored.exclude_from_layer_adaptation_patterns == ("LayerNorm",)
    assert restored.gradient_accumulation_steps == 4


def test_base_class_weight_decay_is_rejected():
    with pytest.raises(ValueError, match="weight_decay_rate"):
        Lamb(weight_decay=0.01)


def test_model_fit_with_xla_reduces_the_loss():
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [keras.Input((3,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)]
    )
    model.compile(optimizer=Lamb(learning_rate=0.01), loss="mse", jit_compile=True)
    features = np.random.default_rng(0).normal(size=(32, 3)).astype("float32")
    targets = features.sum(axis=1, keepdims=True)
    history = model.fit(features, targets, batch_size=8, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
