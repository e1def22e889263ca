"""`run_finetuning(config, output_dir, runtime)`: one fine-tuning run of any task family.

Flax-example style: one function takes a config and an output directory and does what the
config asks (`do_train`, `do_eval`, `do_predict`, `export_saved_model`), the same way for every
family (the `FinetuneTask` subclass of `albert_tf.finetune.task_family` that
`albert_tf.finetune.families.FAMILIES` lists for the config's type):

1. take the output directory's lock (one job per directory), seed everything, choose the
   strategy and the precision; the speed-only forms are the `Runtime` passed in;
2. read and check every input the asked steps need, and the finished run's `task.json` when
   not training, before anything is written: a bad file fails with its name and line and
   leaves `output_dir` as it was;
3. build the model from the pretrained encoder (training), as a smaller student of a finished
   run (distillation, `albert_tf.finetune.distillation`), or load the finished run's;
4. train, evaluate, predict and export, in that order.

Layout of `output_dir` (families add their prediction files):

    finetune_config.json, task.json, spm.model, model.keras   `albert_tf.export.finetuned_run`
    runtime.json                                              the speed-only forms used
    checkpoints/, backup/, logs/train                         `albert_tf.finetune.fitting`
    eval_results.json, logs/eval                              the scores of `evaluate`
    logs/                                                     hparams (HParams dashboard)
    saved_model/                                              the family's signatures
    distillation.json                                         a student's teacher and shapes

Illustration (not run; the driver imports the tagging family from the families' table):
    run_finetuning(
        TaggingConfig(data_dir="wnut17", init_checkpoint="bundle/"), "/tmp/ner",
        Runtime.for_machine(),
    )
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

import keras
import tensorflow as tf

from albert_tf.atomic_files import atomic_write_text, refuse_existing
from albert_tf.errors import UserError
from albert_tf.export.finetuned_run import (
    load_finetuned_model,
    read_task_file,
    run_spm_file,
    write_run_files,
)
from albert_tf.export.task_export import export_task_model
from albert_tf.file_names import TASK_FILE
from albert_tf.finetune.datasets import training_batches
from albert_tf.finetune.distillation.distillation import Distillation
from albert_tf.finetune.families import family_for_config
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.finetune.fitting import optimizer_step, train
from albert_tf.finetune.pretrained_encoder import load_finetuning_encoder
from albert_tf.finetune.task_family import (
    FAMILY_KEY,
    FinetuneRun,
    FinetuneTask,
    TaskInfo,
    TaskInputs,
    family_of_run,
)
from albert_tf.models.chains import use_chains
from albert_tf.output_lock import output_lock
from albert_tf.runtime.runtime import Runtime
from albert_tf.training.hparams import hparam_values, write_hparams
from albert_tf.training.precision import resolve_precision
from albert_tf.training.strategy import create_strategy
from albert_tf.training.summaries import write_scalars

EVAL_RESULTS_FILE = "eval_results.json"
SAVED_MODEL_DIR = "saved_model"


def run_finetuning(
    config: FinetuneConfig,
    output_dir: str,
    runtime: Runtime,
    distillation: Distillation | None = None,
) -> dict[str, Any]:
    """Runs what `config` asks with the task family that takes it.

    `runtime`: the speed-only forms the model trains and is exported with (the commands pass
    their flags' resolved `RuntimeOptions`; `Runtime.for_machine()` is what they run on this
    machine by default). `distillation`: train a
    student of its teacher instead of fine-tuning a pretrained encoder
    (`albert_tf.finetune.distillation`; needs `do_train`).

    Returns:
        A flat dict: `train_examples`, `train_steps`, `train_seconds`, `train/<metric>`
        (training, plus the family's own counts), the scores of `evaluate` (e.g.
        `dev/accuracy`), what `predict` reports (e.g. `predictions`), `saved_model` (path).

    Raises:
        UserError: bad data (naming file and line), an encoder that does not fit the tokenizer
            or the sequence length, no finished run to evaluate, a run of another family.
    """
    task = family_for_config(config)(config)
    if config.bucket_width and not task.bucketing:
        raise UserError(
            f"--bucket_width does not apply to the {task.name} task family (its inputs are not "
            "packed texts of varying length)",
            where="--bucket_width",
            fix="leave it out",
        )
    if distillation is not None:
        distillation.check(task, output_dir)  # Before the lock: nothing written on bad input.
    with output_lock(output_dir, directory=True):  # One job per output directory.
        return _run(task, output_dir, runtime, distillation)


def _run(
    task: FinetuneTask, output_dir: str, runtime: Runtime, distillation: Distillation | None
) -> dict:
    config = task.config
    keras.utils.set_random_seed(config.seed)
    strategy = create_strategy(config.strategy, config.tpu or None)
    precision = resolve_precision(config.precision, strategy, config.jit_compile)
    saved = None if config.do_train else read_task_info(output_dir, task)
    inputs = task.read_inputs(saved)
    with strategy.scope():
        if distillation is not None and config.do_train:
            info, model, spm_model_file = distillation.build(task, inputs, precision)
        else:
            info, model, spm_model_file = _build_or_load(task, inputs, saved, output_dir, precision)
        featurizer = task.featurizer(spm_model_file, info)
    use_chains(model, runtime.chains)
    if config.do_train:  # The run's files may be written now.
        task_json = {FAMILY_KEY: task.name, **info.to_json()}
        write_run_files(output_dir, config.to_json_string(), task_json, spm_model_file)
        if distillation is not None:
            distillation.record(output_dir, model)
    runtime.record(output_dir)
    run = FinetuneRun(config, output_dir, strategy, info, inputs, featurizer, model, task.name)
    results: dict[str, Any] = {}
    if config.do_train:
        results.update(_train(task, run, distillation))
    scores = _evaluate(task, run) if task.evaluates() else {}
    results.update(scores)
    if config.do_train:  # A new run: its settings and what it reported, for TensorBoard.
        write_hparams(run.path("logs"), hparam_values(config), _dashboard_metrics(results, scores))
    if task.predicts():
        results.update(task.predict(run))
    if config.export_saved_model:
        results["saved_model"] = _export(task, run, run.path(SAVED_MODEL_DIR), True, runtime)
    return results


def _export(
    task: FinetuneTask, run: FinetuneRun, export_dir: str, overwrite: bool, runtime: Runtime
) -> str:
    """The family's SavedModel of `run`'s model at `export_dir`."""
    layers = task.serving_layers(run)
    return export_task_model(
        export_dir,
        run.model,
        lambda predict: task.serving_signatures(run, predict, layers),
        layers,
        overwrite=overwrite,
        runtime=runtime,
    )


def _build_or_load(
    task: FinetuneTask, inputs: TaskInputs, saved: TaskInfo | None, output_dir: str, precision: str
) -> tuple[TaskInfo, keras.Model, str]:
    """(info, model, tokenizer file): a new model around the pretrained encoder (no `saved`
    info), or the finished run's; either way the inputs are checked against the info."""
    if saved is not None:
        task.check(inputs, saved)
        return saved, load_finetuned_model(output_dir), run_spm_file(output_dir)
    pretrained = load_finetuning_encoder(task.config, precision)
    info = task.new_info(inputs, pretrained)
    task.check(inputs, info)
    return info, task.build_model(pretrained.encoder, info, precision), pretrained.spm_model_file


def export_finished_run(
    output_dir: str, export_dir: str, overwrite: bool = False, *, runtime: Runtime
) -> str:
    """The SavedModel of a finished run or a converted task model (`albert-tf convert` writes
    its `task.json`) at `export_dir`: its family's signatures, as `--export_saved_model` writes
    them with the family's default settings (e.g. span QA's `max_answer_length`); `runtime`'s
    serving form (the command's resolved flags; `Runtime.plain()` is the reference)."""
    refuse_existing(export_dir, overwrite)  # Before the slow part.
    family = family_of_run(
        output_dir, fix="export it with its family's command and --export_saved_model"
    )
    task = family(family.config_class(do_train=False, do_eval=False, export_saved_model=True))
    info = read_task_info(output_dir, task)
    model = load_finetuned_model(output_dir)
    featurizer = task.featurizer(run_spm_file(output_dir), info)
    strategy = tf.distribute.get_strategy()
    run = FinetuneRun(
        task.config, output_dir, strategy, info, TaskInputs(), featurizer, model, task.name
    )
    return _export(task, run, export_dir, overwrite, runtime)


def read_task_info(output_dir: str, task: FinetuneTask) -> TaskInfo:
    """The typed `task.json` of a finished run of `task`'s family (checked against it)."""
    values = read_task_file(output_dir)
    where = os.path.join(output_dir, TASK_FILE)
    family = values.get(FAMILY_KEY, task.name)  # Runs written before the key have none.
    if family != task.name:
        raise UserError(
            f"{output_dir} holds a {family} run, not {task.name}",
            where=where,
            fix=f"point --output_dir at a {task.name} run",
        )
    return task.info_class.from_json(values, where)


def _train(
    task: FinetuneTask, run: FinetuneRun, distillation: Distillation | None = None
) -> dict[str, Any]:
    """Fits `run.model` (with `distillation`: on its transfer set, through its `Distiller`)."""
    config = run.config
    data = task.training_data(run)
    trainer = None
    if distillation is not None:
        data = distillation.transfer_set(data, run.featurizer)
        with run.strategy.scope():
            trainer = distillation.trainer(run.model, task, run.info)
    # A fresh head starts at the prior (a resumed fit restores its backup over it); a
    # distilled student keeps its teacher's.
    if data.label_counts is not None and trainer is None:
        run.model.start_at_label_prior(data.label_counts)
        logging.info("The head starts at the training labels' prior.")
    dataset = training_batches(
        data.examples, data.count, config.train_batch_size, config.seed, config.bucket_width
    )
    results = train(
        run.model,
        dataset,
        data.count,
        config,
        run.output_dir,
        run.strategy,
        loss=task.loss(run.info),
        metrics=task.metrics(run.info),
        trainer=trainer,
    )
    return {**results, **data.results}


def _dashboard_metrics(results: dict[str, Any], scores: dict[str, Any]) -> list[tuple[str, str]]:
    """The HParams metrics of a run: the training metrics as the `ScalarLogger` writes them
    each epoch (`logs/train`, `epoch_<name>`) and the float scores (`logs/eval`)."""
    train = [
        ("train", f"epoch_{name.removeprefix('train/')}")
        for name in results
        if name.startswith("train/")
    ]
    return train + [("eval", name) for name, value in scores.items() if isinstance(value, float)]


def _evaluate(task: FinetuneTask, run: FinetuneRun) -> dict[str, Any]:
    """The family's scores, written to `eval_results.json` and (floats) `logs/eval`."""
    scores = task.evaluate(run)
    writer = tf.summary.create_file_writer(run.path("logs", "eval"))
    floats = {name: value for name, value in scores.items() if isinstance(value, float)}
    write_scalars(writer, floats, optimizer_step(run.model))
    writer.close()
    atomic_write_text(run.path(EVAL_RESULTS_FILE), json.dumps(scores, indent=2))
    logging.info("Evaluation: %s", scores)
    return scores
