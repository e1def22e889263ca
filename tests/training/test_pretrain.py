"""End-to-end pretraining runs on a tiny model: outputs, resume, faults, precisions."""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.errors import UserError
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.runtime.runtime import Runtime
from albert_tf.training import pretrain
from albert_tf.training.checkpointing import restore_latest_readable
from albert_tf.training.pretrain import (
    load_encoder_weights,
    load_pretrained_weights,
    train_and_evaluate,
)
from albert_tf.training.pretrain_loop import steps_until_next_event
from tests import commands
from tests.tensorboard_events import profiler_traces, read_hparams, read_scalars
from tests.training.conftest import TINY_ALBERT, tiny_pretrain_config


def _checkpoint_weights(prefix: str) -> dict[str, np.ndarray]:
    """Every model and optimizer tensor of a checkpoint, by its key."""
    reader = tf.train.load_checkpoint(prefix)
    return {
        key: reader.get_tensor(key)
        for key in reader.get_variable_to_shape_map()
        if key.startswith(("model/", "optimizer/")) and "OBJECT_GRAPH" not in key
    }


@pytest.fixture(scope="module")
def full_run(tmp_path_factory, record_dir, albert_config_file):
    """An uninterrupted 6-step run with evaluation: (config, workdir, metrics)."""
    config = tiny_pretrain_config(
        record_dir,
        albert_config_file,
        do_eval=True,
        save_checkpoints_steps=2,
        log_every_steps=2,
        steps_per_execution=2,
        profile_steps="3,4",
    )
    workdir = str(tmp_path_factory.mktemp("full_run"))
    return config, workdir, train_and_evaluate(config, workdir, runtime=Runtime.for_machine())


@pytest.mark.slow  # A 6-step run with evaluation.
def test_run_writes_metrics_checkpoints_best_and_encoder(full_run):
    config, workdir, metrics = full_run
    assert metrics["step"] == 6
    for name in ("masked_lm_loss", "sentence_order_loss", "masked_lm_accuracy"):
        assert np.isfinite(metrics[f"train/{name}"]) and np.isfinite(metrics[f"eval/{name}"])
    assert 0 < metrics["train/examples_per_second"]
    assert tf.train.latest_checkpoint(workdir).endswith("ckpt-6")
    assert tf.train.latest_checkpoint(os.path.join(workdir, "best"))
    assert os.path.exists(os.path.join(workdir, "best", "metrics.json"))
    assert os.listdir(os.path.join(workdir, "logs", "train"))
    encoder = keras.saving.load_model(os.path.join(workdir, "encoder.keras"))
    saved_config = AlbertConfig.from_json_file(os.path.join(workdir, "albert_config.json"))
    assert encoder.config == saved_config


@pytest.mark.slow  # Reads the 6-step run.
def test_run_records_the_speed_forms_it_ran(full_run):
    _, workdir, _ = full_run
    with open(os.path.join(workdir, "runtime.json"), encoding="utf-8") as handle:
        recorded = json.load(handle)
    assert recorded == json.loads(json.dumps(Runtime.for_machine().describe()))


@pytest.mark.slow  # Reads the 6-step run.
def test_run_writes_its_hparams_and_metrics_for_tensorboard(full_run):
    config, workdir, _ = full_run
    written = read_hparams(os.path.join(workdir, "logs"))
    hparams = written["hparams"]
    assert hparams["learning_rate"] == pytest.approx(config.learning_rate)
    assert hparams["train_batch_size"] == 8 and hparams["do_eval"] is True
    assert hparams["input_file"] == config.input_file and hparams["profile_steps"] == "3,4"
    assert hparams["model.hidden_size"] == TINY_ALBERT["hidden_size"]
    assert sorted(written["columns"]) == sorted(hparams)
    assert {("train", "loss"), ("eval", "masked_lm_accuracy")} <= set(written["metrics"])
    # Each metric is a scalar the run wrote where the dashboard looks for it.
    for group, tag in written["metrics"]:
        assert tag in read_scalars(os.path.join(workdir, "logs", group)), (group, tag)


@pytest.mark.slow  # Reads the 6-step run.
def test_profile_steps_capture_a_trace_of_those_steps(full_run):
    _, workdir, _ = full_run
    assert profiler_traces(os.path.join(workdir, "logs", "train"))


def test_the_steps_between_events_end_where_the_trace_starts_and_stops(base_config):
    config = base_config.replace(
        num_train_steps=20, save_checkpoints_steps=20, log_every_steps=20, steps_per_execution=4
    )
    traced = config.replace(profile_steps="7,9")
    plain = [steps_until_next_event(config, step) for step in (0, 4, 6, 8)]
    assert plain == [4, 4, 4, 4]
    assert [steps_until_next_event(traced, step) for step in (0, 4, 6, 8, 9)] == [4, 2, 3, 1, 4]


@pytest.mark.parametrize("value", ["0,3", "5,3", "a", "1,2,3", "3,"])
def test_profile_steps_must_be_a_step_range(base_config, value):
    with pytest.raises(UserError, match="--profile_steps"):
        base_config.replace(profile_steps=value)


@pytest.mark.slow  # A killed child run, then a resumed one.
def test_kill_during_save_then_resume_matches_uninterrupted_run(full_run, tmp_path):
    config, full_workdir, _ = full_run
    workdir = str(tmp_path / "killed")
    # The child dies by SIGKILL inside the save of step 4, after the checkpoint
    # files are written and before the `checkpoint` state file names them.
    child = textwrap.dedent(
        f"""
        import os, signal
        import tensorflow as tf
        from albert_tf.runtime import Runtime
        from albert_tf.training.pretrain import train_and_evaluate
        from albert_tf.training.pretrain_config import PretrainConfig

        record_state = tf.train.CheckpointManager._record_state
        def record_state_or_die(self):
            if self._latest_checkpoint.endswith("ckpt-4"):
                os.kill(os.getpid(), signal.SIGKILL)
            record_state(self)
        tf.train.CheckpointManager._record_state = record_state_or_die
        config = PretrainConfig(**{dict(config.__dict__, do_eval=False)!r})
        train_and_evaluate(config, {workdir!r}, Runtime.for_machine())
        """
    )
    result = commands.run([sys.executable, "-c", child], preloaded=True)
    assert result.returncode == -signal.SIGKILL, result.stderr[-3000:]
    assert os.path.exists(os.path.join(workdir, "ckpt-4.index"))  # written, not recorded
    assert tf.train.latest_checkpoint(workdir).endswith("ckpt-2")

    metrics = train_and_evaluate(
        config.replace(do_eval=False), workdir, runtime=Runtime.for_machine()
    )
    assert metrics["step"] == 6
    resumed = _checkpoint_weights(os.path.join(workdir, "ckpt-6"))
    uninterrupted = _checkpoint_weights(os.path.join(full_workdir, "ckpt-6"))
    assert resumed.keys() == uninterrupted.keys()
    for key, value in uninterrupted.items():
        np.testing.assert_array_equal(resumed[key], value, err_msg=key)


def test_unreadable_newest_checkpoint_falls_back_to_the_previous(tmp_path):
    variable = tf.Variable(0.0)
    checkpoint = tf.train.Checkpoint(v=variable)
    manager = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=3)
    for value in (1.0, 2.0):
        variable.assign(value)
        manager.save()
    newest = manager.latest_checkpoint
    data_file = tf.io.gfile.glob(newest + ".data-*")[0]
    with open(data_file, "r+b") as f:
        f.truncate(2)  # a copy cut short
    variable.assign(0.0)
    restored = restore_latest_readable(checkpoint, manager)
    assert restored != newest and restored == manager.checkpoints[0]
    assert float(variable) == 1.0


def test_no_restorable_checkpoint_is_a_user_error_naming_the_directory(tmp_path):
    # A directory of checkpoints of another model (e.g. changed settings): nothing restores.
    other = tf.train.Checkpoint(other=tf.Variable(1.0))
    tf.train.CheckpointManager(other, str(tmp_path), max_to_keep=2).save()
    checkpoint = tf.train.Checkpoint(v=tf.Variable(0.0))
    manager = tf.train.CheckpointManager(checkpoint, str(tmp_path), max_to_keep=2)
    with pytest.raises(UserError, match="use a new output directory") as raised:
        restore_latest_readable(checkpoint, manager)
    assert raised.value.where == str(tmp_path)


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_sigterm_saves_and_returns(base_config, tmp_path, monkeypatch):
    add = pretrain._Window.add

    def add_then_sigterm(self, sums):
        add(self, sums)
        os.kill(os.getpid(), signal.SIGTERM)  # arrives after the first step

    monkeypatch.setattr(pretrain._Window, "add", add_then_sigterm)
    workdir = str(tmp_path)
    metrics = train_and_evaluate(
        base_config.replace(num_train_steps=100), workdir, runtime=Runtime.for_machine()
    )
    assert metrics["stopped_by_signal"] == 1.0 and metrics["step"] == 1
    assert tf.train.latest_checkpoint(workdir).endswith("ckpt-1")
    assert not os.path.exists(os.path.join(workdir, "encoder.keras"))
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handler restored


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_non_finite_loss_stops_and_keeps_the_last_good_checkpoint(base_config, tmp_path):
    workdir = str(tmp_path)
    config = base_config.replace(
        learning_rate=1e30,
        num_warmup_steps=0,
        clip_norm=0.0,
        save_checkpoints_steps=1,
        num_train_steps=50,
        log_every_steps=50,
    )
    with pytest.raises(FloatingPointError, match="not finite at step .* last good checkpoint"):
        train_and_evaluate(config, workdir, runtime=Runtime.for_machine())
    latest = tf.train.latest_checkpoint(workdir)
    weights = _checkpoint_weights(latest)
    assert all(np.all(np.isfinite(v)) for v in weights.values() if v.dtype.kind == "f")


def test_auto_precision_resolved_to_float16_scales_the_loss(base_config, tmp_path, monkeypatch):
    # `auto` may resolve to float16 (here forced): its gradients need loss scaling too.
    monkeypatch.setenv("ALBERT_TF_PRECISION", "mixed_float16")
    config = base_config.replace(precision="auto")
    run = pretrain._Run(
        config,
        AlbertConfig(**TINY_ALBERT),
        tf.distribute.get_strategy(),
        str(tmp_path),
        Runtime.plain(),
    )
    assert run.precision == "mixed_float16"
    assert isinstance(run.optimizer, keras.optimizers.LossScaleOptimizer)


def _assert_trained_in(workdir, metrics: dict) -> None:
    """A finite training loss, and an encoder that loads (a mixed-precision run's too)."""
    assert np.isfinite(metrics["train/loss"]) and metrics["train/loss"] > 0
    assert keras.saving.load_model(os.path.join(workdir, "encoder.keras")).count_params() > 0


# The two mixed precisions run in the next two tests (each a run of its own feature).
@pytest.mark.slow  # A run with evaluation.
def test_mlm_only_bfloat16_run_reports_the_loss_it_minimizes(base_config, tmp_path):
    config = base_config.replace(
        sentence_order_loss_weight=0.0,
        precision="mixed_bfloat16",
        do_eval=True,
        num_train_steps=2,
        save_checkpoints_steps=2,
    )
    metrics = train_and_evaluate(config, str(tmp_path), runtime=Runtime.for_machine())
    _assert_trained_in(tmp_path, metrics)
    for split in ("train", "eval"):
        # The untrained SOP head is still measured, but it is not in the objective.
        assert metrics[f"{split}/sentence_order_loss"] > 0
        assert metrics[f"{split}/loss"] == metrics[f"{split}/masked_lm_loss"]


@pytest.mark.slow  # A run with masks drawn in tf.data.
def test_dynamic_masking_float16_trains_on_masks_drawn_in_the_pipeline(
    base_config, tmp_path, monkeypatch
):
    calls, make_dataset = [], pretrain.pretrain_dataset

    def recording_dataset(*args, **kwargs):
        calls.append(kwargs)
        return make_dataset(*args, **kwargs)

    monkeypatch.setattr(pretrain, "pretrain_dataset", recording_dataset)
    config = base_config.replace(
        dynamic_masking=True,
        masked_lm_prob=0.3,
        ngram=2,
        precision="mixed_float16",  # With loss scaling (test_auto_precision_...).
        num_train_steps=2,
        save_checkpoints_steps=2,
    )
    metrics = train_and_evaluate(config, str(tmp_path), runtime=Runtime.for_machine())
    _assert_trained_in(tmp_path, metrics)
    training = [call for call in calls if call["is_training"]]
    assert training and all(c["dynamic_masking"] and c["vocab_size"] == 64 for c in training)
    options = [c["masking_options"] for c in training]
    assert all((o.masked_lm_prob, o.ngram) == (0.3, 2) for o in options)
    assert '"dynamic_masking": true' in (tmp_path / "pretrain_config.json").read_text()


def test_tpu_strategy_without_tpu_says_so(base_config, tmp_path):
    with pytest.raises(RuntimeError, match="No TPU is reachable"):
        train_and_evaluate(
            base_config.replace(strategy="tpu"), str(tmp_path), runtime=Runtime.for_machine()
        )


@pytest.mark.slow  # Reads the 6-step run.
def test_init_checkpoint_loads_the_encoder_from_a_checkpoint_or_keras_file(full_run):
    # Also shows that encoder.keras holds the weights of the last checkpoint.
    _, workdir, _ = full_run
    exported = keras.saving.load_model(os.path.join(workdir, "encoder.keras"))
    for source in (workdir, os.path.join(workdir, "encoder.keras")):
        encoder = AlbertEncoder(exported.config)
        load_encoder_weights(encoder, source)
        for expected, actual in zip(exported.weights, encoder.weights, strict=True):
            np.testing.assert_array_equal(actual.numpy(), expected.numpy())
    with pytest.raises(ValueError, match="no checkpoint found"):
        load_encoder_weights(AlbertEncoder(exported.config), os.path.join(workdir, "logs"))


@pytest.mark.slow  # Reads the 6-step run.
def test_init_checkpoint_of_a_pretraining_run_also_loads_its_heads(full_run):
    # Continued pretraining (e.g. a second phase at a longer length) keeps the heads;
    # an encoder.keras file has none, so they keep their fresh initialization.
    _, workdir, _ = full_run
    config = AlbertConfig.from_json_file(os.path.join(workdir, "albert_config.json"))
    trained = AlbertPretrainer(AlbertEncoder(config))
    tf.train.Checkpoint(model=trained).read(tf.train.latest_checkpoint(workdir)).expect_partial()
    heads = ("masked_lm_head", "sentence_order_head")

    from_run = AlbertPretrainer(AlbertEncoder(config))
    assert not np.array_equal(
        from_run.sentence_order_head.weights[0].numpy(),
        trained.sentence_order_head.weights[0].numpy(),
    )
    load_pretrained_weights(from_run, workdir)
    for expected, actual in zip(trained.weights, from_run.weights, strict=True):
        np.testing.assert_array_equal(actual.numpy(), expected.numpy())

    from_keras = AlbertPretrainer(AlbertEncoder(config))
    encoder_ids = {id(w) for w in from_keras.encoder.weights}  # Minus the tied embedding.
    own = [w for name in heads for w in getattr(from_keras, name).weights]
    own = [w for w in own if id(w) not in encoder_ids]
    fresh = [w.numpy() for w in own]
    load_pretrained_weights(from_keras, os.path.join(workdir, "encoder.keras"))
    after = [w.numpy() for w in own]
    for before, now in zip(fresh, after, strict=True):
        np.testing.assert_array_equal(now, before)
    for expected, actual in zip(trained.encoder.weights, from_keras.encoder.weights, strict=True):
        np.testing.assert_array_equal(actual.numpy(), expected.numpy())


@pytest.mark.slow  # Over 5 s: trains, exports or compiles a model.
def test_corrupt_record_file_is_named(base_config, tmp_path, record_dir):
    good = open(os.path.join(record_dir, "train-0.tfrecord"), "rb").read()
    offset = 0
    for _ in range(40):  # TFRecord framing: length (8), crc (4), payload, crc (4)
        offset += 16 + int.from_bytes(good[offset : offset + 8], "little")
    broken = tmp_path / "broken.tfrecord"
    broken.write_bytes(good[: offset + 20])  # 40 good records, then one cut short
    config = base_config.replace(input_file=str(broken), num_train_steps=20, shuffle_buffer_size=1)
    with pytest.raises(ValueError, match="broken.tfrecord: corrupt or truncated"):
        train_and_evaluate(config, str(tmp_path / "work"), runtime=Runtime.for_machine())
