"""`run_experiment`: a preset's cells as ordinary albert_tf runs, then tables and plots.

Layout of `experiment_dir`:
    experiment.json                    preset, scale and inputs (a rerun must match)
    data/{sop,nsp}/{train,eval}/       the data builder's records, built once (and
                                       data/sop_<segmenter>/ for cells with a word segmenter)
    cells/<cell>/albert_config.json    the cell's model
    cells/<cell>/pretrain/             an ordinary pretraining workdir (checkpoints, logs)
    cells/<cell>/result.json           written last: the cell is finished
    tensorboard/<cell>/                one TensorBoard run per cell: its hparams and metrics
                                       (`tensorboard --logdir <experiment_dir>/tensorboard`:
                                       the HParams dashboard compares the cells)
    results.csv, results.md            one row per cell; the paper-like table
    learning_curves.png, parameters_vs_accuracy.png
    layer_transitions.csv, layer_transitions.png   every cell's Figure 2 values

Rerunning the same command skips finished cells (their `result.json`) and resumes an
interrupted one from its last checkpoint (`train_and_evaluate` resumes by itself); its
evaluation is deterministic, so the results are those of an uninterrupted run.

Example (an illustration, not a doctest: it runs for minutes):

    from albert_tf.experiments.scale import SCALES
    inputs = ExperimentInputs("train.txt", "valid.txt", "spm.model")
    result = run_experiment(
        "sentence_objective", "/tmp/exp", inputs, SCALES["cpu"], runtime=Runtime.for_machine()
    )
    result.ran  # ['none', 'nsp', 'sop'] the first time, [] when rerun
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import time

import tensorflow as tf

from albert_tf.atomic_files import atomic_write_text
from albert_tf.config import AlbertConfig
from albert_tf.errors import UserError
from albert_tf.experiments.cell import Cell
from albert_tf.experiments.downstream import DownstreamOptions, finetune_cell
from albert_tf.experiments.evaluation import evaluate_model, load_pretrainer, majority_baselines
from albert_tf.experiments.layer_analysis import analyze_layers, layer_transitions_csv
from albert_tf.experiments.learning_curves import read_scalars
from albert_tf.experiments.parameter_counts import (
    count_encoder_parameters,
    millions,
    paper_convention_count,
    paper_shape,
)
from albert_tf.experiments.plots import (
    plot_layer_transitions,
    plot_learning_curves,
    plot_parameters_vs_accuracy,
)
from albert_tf.experiments.presets import (
    PAPER_INTRINSIC,
    PAPER_PARAMETERS,
    Preset,
    expand_preset,
    get_preset,
)
from albert_tf.experiments.records import (
    ExperimentInputs,
    build_records,
    check_inputs,
    records_pattern,
)
from albert_tf.experiments.scale import ExperimentScale
from albert_tf.experiments.tables import write_csv, write_markdown
from albert_tf.file_names import ALBERT_CONFIG_FILE, ENCODER_FILE
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.output_lock import output_lock
from albert_tf.runtime.runtime import Runtime
from albert_tf.training.hparams import hparam_values, write_hparams
from albert_tf.training.pretrain import train_and_evaluate
from albert_tf.training.pretrain_config import PretrainConfig
from albert_tf.training.summaries import write_scalars

EXPERIMENT_FILE = "experiment.json"
RESULT_FILE = "result.json"
CURVE_NAMES = ("masked_lm_accuracy", "sentence_order_accuracy", "loss")
# Besides the cell's own fields, the hparams of its TensorBoard run (the scale's settings).
CELL_MODEL_HPARAMS = ("hidden_size", "num_hidden_layers", "num_attention_heads")
CELL_TRAINING_HPARAMS = ("num_train_steps", "train_batch_size", "max_seq_length", "learning_rate")
LAYER_ANALYSIS_RECORDS = 256


@dataclasses.dataclass
class ExperimentResult:
    rows: list[dict]
    ran: list[str]  # cells trained or evaluated by this call (empty: nothing to do)
    files: list[str]


def _check_experiment_file(experiment_dir: str, description: dict) -> None:
    description = json.loads(json.dumps(description))  # tuples -> lists, as stored
    path = os.path.join(experiment_dir, EXPERIMENT_FILE)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            previous = json.load(handle)
        if previous != description:
            changed = sorted(k for k in description if previous.get(k) != description[k])
            raise UserError(
                f"{experiment_dir} holds an experiment with other settings ({', '.join(changed)})",
                where=path,
                fix="rerun with the same flags or choose another --output_dir",
            )
        return
    os.makedirs(experiment_dir, exist_ok=True)
    atomic_write_text(path, json.dumps(description, indent=2, sort_keys=True) + "\n")


def _pretrain_config(
    cell: Cell, preset: Preset, scale: ExperimentScale, experiment_dir: str, albert_config_file: str
):
    return PretrainConfig(
        input_file=records_pattern(experiment_dir, cell.records_name, "train"),
        albert_config_file=albert_config_file,
        train_batch_size=scale.train_batch_size,
        max_seq_length=scale.max_seq_length,
        max_predictions_per_seq=scale.max_predictions_per_seq,
        learning_rate=scale.learning_rate,
        num_train_steps=preset.num_train_steps(scale),
        num_warmup_steps=scale.num_warmup_steps,
        save_checkpoints_steps=scale.save_checkpoints_steps,
        keep_checkpoint_max=1,
        log_every_steps=scale.log_every_steps,
        precision="float32",
        jit_compile=scale.jit_compile,
        seed=scale.seed,
        sentence_order_loss_weight=0.0 if cell.sentence_objective == "none" else 1.0,
    )


def _paper_columns(cell: Cell, preset: Preset) -> dict:
    # Table 5's accuracies belong to its own ablation (ALBERT-base, E = 128, all shared).
    paper = PAPER_INTRINSIC.get(cell.sentence_objective, {}) if preset.paper_intrinsic else {}
    return {
        "paper_parameters": PAPER_PARAMETERS.get((cell.sharing, cell.paper_embedding_size), ""),
        **{f"paper_{name}": paper.get(name, "") for name in ("mlm", "nsp", "sop")},
    }


def run_cell(
    cell: Cell,
    preset: Preset,
    scale: ExperimentScale,
    experiment_dir: str,
    vocab_size: int,
    inputs: ExperimentInputs | None = None,
    downstream: DownstreamOptions | None = None,
    *,
    runtime: Runtime,
) -> dict:
    """Trains (or resumes) and evaluates one cell; writes and returns its result row.

    With `downstream` (and `inputs`, for the tokenizer), also fine-tunes the cell's encoder.
    `runtime`: the speed-only forms of its training and fine-tuning.
    """
    cell_dir = os.path.join(experiment_dir, "cells", cell.name)
    os.makedirs(cell_dir, exist_ok=True)
    albert_config = cell.albert_config(scale, vocab_size)
    config_file = os.path.join(cell_dir, ALBERT_CONFIG_FILE)
    atomic_write_text(config_file, albert_config.to_json_string())
    workdir = os.path.join(cell_dir, "pretrain")
    resumed = os.path.exists(os.path.join(workdir, "checkpoint"))
    pretrain_config = _pretrain_config(cell, preset, scale, experiment_dir, config_file)
    start = time.monotonic()
    train_and_evaluate(pretrain_config, workdir, runtime)
    wall_seconds = time.monotonic() - start

    model = AlbertPretrainer(AlbertEncoder(albert_config))
    load_pretrainer(model, workdir)
    paper_config = paper_shape(cell.sharing, cell.paper_embedding_size)
    metrics = evaluate_model(
        model,
        {o: records_pattern(experiment_dir, o, "eval") for o in ("nsp", "sop")},
        scale,
        has_sentence_head=cell.sentence_objective != "none",
    )
    layers = analyze_layers(
        model.encoder,
        records_pattern(experiment_dir, "sop", "eval"),
        scale.max_seq_length,
        scale.max_predictions_per_seq,
        num_records=LAYER_ANALYSIS_RECORDS,
    )
    if downstream is not None:
        metrics.update(
            finetune_cell(
                downstream,
                os.path.join(workdir, ENCODER_FILE),
                inputs.spm_model_file,
                inputs.do_lower_case,
                scale.max_seq_length,
                scale.seed,
                os.path.join(cell_dir, "downstream"),
                runtime,
            )
        )
    _write_cell_run(experiment_dir, cell, albert_config, pretrain_config, metrics)
    row = {
        "preset": preset.name,
        "cell": cell.name,
        **cell.to_dict(),
        "hidden_size": albert_config.hidden_size,
        "num_hidden_layers": albert_config.num_hidden_layers,
        "parameters": model.encoder.count_params(),
        "paper_shape_parameters": count_encoder_parameters(paper_config),
        "paper_shape_millions": millions(paper_convention_count(paper_config)),
        "num_train_steps": pretrain_config.num_train_steps,
        "train_batch_size": scale.train_batch_size,
        "max_seq_length": scale.max_seq_length,
        "wall_seconds": wall_seconds,
        "resumed": resumed,
        **metrics,
        **_paper_columns(cell, preset),
        "curves": read_scalars(os.path.join(workdir, "logs", "train"), CURVE_NAMES),
        "layer_transitions": layers,
    }
    atomic_write_text(os.path.join(cell_dir, RESULT_FILE), json.dumps(row, indent=2) + "\n")
    return row


def _write_cell_run(
    experiment_dir: str,
    cell: Cell,
    albert_config: AlbertConfig,
    pretrain_config: PretrainConfig,
    metrics: dict[str, float],
) -> None:
    """`tensorboard/<cell>/`: the cell's settings as hparams and its metrics as scalars (at
    its last step), replacing what an interrupted earlier attempt may have left there."""
    run_dir = os.path.join(experiment_dir, "tensorboard", cell.name)
    shutil.rmtree(run_dir, ignore_errors=True)
    hparams = {
        **hparam_values(cell),
        **{name: getattr(albert_config, name) for name in CELL_MODEL_HPARAMS},
        **{name: getattr(pretrain_config, name) for name in CELL_TRAINING_HPARAMS},
    }
    write_hparams(run_dir, hparams, [(None, name) for name in metrics], trial_id=cell.name)
    writer = tf.summary.create_file_writer(run_dir)
    write_scalars(writer, metrics, pretrain_config.num_train_steps)
    writer.close()


def write_outputs(
    preset: Preset, scale: ExperimentScale, rows: list[dict], experiment_dir: str
) -> list[str]:
    """results.csv, results.md and the PNG plots; returns their paths."""
    scale_line = (
        f"Scale: H = {scale.hidden_size}, L = {scale.num_hidden_layers}, "
        f"{scale.num_attention_heads} heads, length {scale.max_seq_length}, batch "
        f"{scale.train_batch_size}, {preset.num_train_steps(scale)} steps per cell, "
        f"LAMB lr {scale.learning_rate}, seed {scale.seed}; same records and budget for "
        "every cell."
    )
    paths = {
        name: os.path.join(experiment_dir, name)
        for name in (
            "results.csv",
            "results.md",
            "learning_curves.png",
            "parameters_vs_accuracy.png",
            "layer_transitions.csv",
            "layer_transitions.png",
        )
    }
    atomic_write_text(paths["results.csv"], write_csv(rows))
    if preset.trains:
        baselines = majority_baselines(
            {o: records_pattern(experiment_dir, o, "eval") for o in ("nsp", "sop")}, scale
        )
        scale_line += (
            f" Majority-class baseline on the scored records: NSP {100 * baselines['nsp']:.1f}%,"
            f" SOP {100 * baselines['sop']:.1f}% (a sentence column at this level learned "
            "nothing)."
        )
    atomic_write_text(paths["results.md"], write_markdown(preset, rows, scale_line))
    if not preset.trains:
        return [paths["results.csv"], paths["results.md"]]
    plot_learning_curves(rows, f"{preset.title}: learning curves", paths["learning_curves.png"])
    plot_parameters_vs_accuracy(
        rows, f"{preset.title}: parameters vs accuracy", paths["parameters_vs_accuracy.png"]
    )
    models = {row["cell"]: row["layer_transitions"] for row in rows}
    atomic_write_text(paths["layer_transitions.csv"], layer_transitions_csv(models))
    plot_layer_transitions(
        models,
        paths["layer_transitions.png"],
        f"{preset.title}: layer transitions (mean over real tokens of "
        f"up to {LAYER_ANALYSIS_RECORDS} eval records)",
    )
    return list(paths.values())


def select_cells(cells: list[Cell], names: tuple[str, ...], preset_name: str) -> list[Cell]:
    """The cells named in `names` (all when empty), in the preset's order."""
    unknown = sorted(set(names) - {cell.name for cell in cells})
    if unknown:
        raise UserError(
            f"preset {preset_name} has no cell {', '.join(unknown)}",
            where="--cells",
            fix=f"choose among {', '.join(cell.name for cell in cells)}",
        )
    return [cell for cell in cells if not names or cell.name in names]


def run_experiment(
    preset_name: str,
    experiment_dir: str,
    inputs: ExperimentInputs | None,
    scale: ExperimentScale,
    parallelism: int = 1,
    only_cells: tuple[str, ...] = (),
    downstream: DownstreamOptions | None = None,
    *,
    runtime: Runtime,
) -> ExperimentResult:
    """Runs (or finishes) a preset in `experiment_dir`; see the module docstring.

    `only_cells`: run and tabulate only these cells of the preset (all when empty).
    `downstream`: also fine-tune every cell's encoder on this task (a results column).
    `runtime`: the speed-only forms the cells train with.
    """
    preset = get_preset(preset_name)
    experiment_dir = os.path.abspath(experiment_dir)
    with output_lock(experiment_dir, directory=True):  # One job per experiment directory.
        return _run_experiment(
            preset,
            experiment_dir,
            inputs,
            scale,
            parallelism,
            only_cells,
            downstream,
            runtime,
        )


def _run_experiment(
    preset: Preset,
    experiment_dir: str,
    inputs: ExperimentInputs | None,
    scale: ExperimentScale,
    parallelism: int,
    only_cells: tuple[str, ...],
    downstream: DownstreamOptions | None,
    runtime: Runtime,
) -> ExperimentResult:
    preset_name = preset.name
    if not preset.trains:
        os.makedirs(experiment_dir, exist_ok=True)
        return ExperimentResult([], [], write_outputs(preset, scale, [], experiment_dir))
    if inputs is None:
        raise UserError(
            f"preset {preset_name} trains models",
            fix="pass --input_file, --eval_file and --spm_model_file",
        )
    description = {
        "preset": preset_name,
        "scale": scale.to_dict(),
        "inputs": dataclasses.asdict(inputs),
    }
    # Absent when unset, so that older experiment.json files still match.
    if only_cells:
        description["only_cells"] = list(only_cells)
    if downstream is not None:
        description["downstream"] = dataclasses.asdict(downstream)
    check_inputs(inputs)  # Before experiment.json: a bad input leaves nothing behind.
    _check_experiment_file(experiment_dir, description)
    cells = select_cells(expand_preset(preset_name, scale), only_cells, preset_name)
    segmented = {c.records_name: c.word_segmenter for c in cells if c.word_segmenter != "none"}
    manifests = build_records(experiment_dir, inputs, scale, parallelism, segmented)
    vocab_size = int(manifests["sop/train"]["vocab_size"])
    rows, ran = [], []
    for cell in cells:
        result_path = os.path.join(experiment_dir, "cells", cell.name, RESULT_FILE)
        if os.path.exists(result_path):
            with open(result_path, encoding="utf-8") as handle:
                rows.append(json.load(handle))
            logging.info("Cell %s: finished earlier, skipped.", cell.name)
            continue
        logging.info("Cell %s: training.", cell.name)
        rows.append(
            run_cell(
                cell, preset, scale, experiment_dir, vocab_size, inputs, downstream, runtime=runtime
            )
        )
        ran.append(cell.name)
    return ExperimentResult(rows, ran, write_outputs(preset, scale, rows, experiment_dir))
