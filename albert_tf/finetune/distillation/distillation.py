"""Distillation: a fine-tuning run whose smaller model learns from a finished run, its teacher.

The student is a normal fine-tuning run of the teacher's family (`run_finetuning` with
`distillation=Distillation(...)`): the same `task.json` (labels, lengths, casing), tokenizer,
checks, lock, resumable training, evaluation and exports. Only two steps differ:

* build: the student's encoder is the teacher's made smaller (`students`: the shared block
  applied fewer times, or a smaller shape), initialized from the teacher, and the family's
  head on it takes the teacher's head;
* train: Keras's `keras.distillation.Distiller` fits it on the transfer set (the family's
  training data, plus `unlabeled_file`'s text without labels: `transfer_set`) with the
  family's label loss (weight `label_weight`; 0 on the unlabeled examples) plus what the
  family distills (`FinetuneTask.distillation_loss`: the teacher's logits at `temperature`)
  and, optionally, the hidden states its head reads (`hidden_weight`, mean squared error).

Every check (a finished run of a family that distills, a smaller student, a readable
unlabeled file) runs in `check`, before the output directory is touched. `distillation.json`
records the settings and shapes. A killed run resumes as every fine-tuning run does (the
driver's `backup/`): the same command line continues the `Distiller`'s fit where it stopped.

Illustration (not run):
    distillation = Distillation(DistillConfig(teacher="/tmp/sst2", student_layers=2))
    run_finetuning(teacher_config(distillation.teacher_dir), "/tmp/sst2_k2",
                   Runtime.for_machine(), distillation=distillation)
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import zipfile
from typing import Any

import keras

from albert_tf.atomic_files import atomic_write_text
from albert_tf.config import AlbertConfig
from albert_tf.errors import UserError
from albert_tf.export.finetuned_run import (
    is_finetuned_run,
    load_finetuned_model,
    read_task_file,
    run_spm_file,
)
from albert_tf.file_names import FINETUNE_CONFIG_FILE, FINETUNED_MODEL_FILE, TASK_FILE
from albert_tf.finetune.distillation.distill_config import DistillConfig
from albert_tf.finetune.distillation.students import (
    describe,
    initialize_from_teacher,
    student_config,
)
from albert_tf.finetune.distillation.transfer_set import (
    UnlabeledTexts,
    read_unlabeled,
    with_unlabeled,
)
from albert_tf.finetune.task_family import (
    FinetuneTask,
    TaskInfo,
    TaskInputs,
    TrainingData,
    family_of_run,
)
from albert_tf.models.encoder import AlbertEncoder

DISTILLATION_FILE = "distillation.json"


def teacher_family(teacher_dir: str) -> type[FinetuneTask]:
    """The family of the finished run at `teacher_dir` (its `task.json`'s, from the families'
    table); a `UserError` when it is not one or its family cannot be distilled."""
    if not is_finetuned_run(teacher_dir):
        raise UserError(
            "not a finished fine-tuning run (no model.keras)",
            where=teacher_dir,
            fix="pass --teacher a run's --output_dir after its training ended, or a converted "
            "task model",
        )
    family = family_of_run(teacher_dir, fix="retrain or convert the teacher with this version")
    if family.distillation_loss is FinetuneTask.distillation_loss:
        raise UserError(
            f"the {family.name} task family cannot be distilled",
            where=teacher_dir,
            fix="distill a classification, multiple choice or tagging run",
        )
    return family


def teacher_config_values(teacher_dir: str) -> dict[str, Any]:
    """The teacher's `finetune_config.json` (its data settings), or {} (a converted model)."""
    path = os.path.join(teacher_dir, FINETUNE_CONFIG_FILE)
    if not os.path.isfile(path):
        return {}
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def teacher_encoder_config(teacher_dir: str) -> AlbertConfig:
    """The teacher encoder's config, read from `model.keras` without building the model."""
    path = os.path.join(teacher_dir, FINETUNED_MODEL_FILE)
    try:
        with zipfile.ZipFile(path) as archive:
            model = json.loads(archive.read("config.json"))
        return AlbertConfig.from_dict(model["config"]["encoder"]["config"]["config"])
    except (KeyError, TypeError, ValueError, zipfile.BadZipFile) as error:
        raise UserError(
            f"no ALBERT task model ({type(error).__name__}: {error})",
            where=path,
            fix="pass --teacher a run of albert-tf's fine-tuning commands",
        ) from None


class Distillation:
    """A distillation run's teacher and student, for the driver (`run_finetuning`).

    `check(task, output_dir)` before anything is written; `build` in the strategy's scope
    (loads the teacher, builds the student); `trainer(student, task, info)`: the `Distiller`.
    """

    def __init__(self, config: DistillConfig):
        self.config = config
        self.teacher_dir = config.teacher
        self.teacher: keras.Model | None = None
        self.unlabeled: UnlabeledTexts | None = None  # Read by `check`.

    def student_config(self) -> AlbertConfig:
        """The student encoder's config (a `UserError` if it is not smaller)."""
        teacher = teacher_encoder_config(self.teacher_dir)
        return student_config(teacher, self.config.student_layers, self.config.student_config)

    def check(self, task: FinetuneTask, output_dir: str) -> None:
        """Every check that needs no model: a teacher of `task`'s family, a smaller student,
        hidden states of one width, an output that is not the teacher, and the unlabeled
        file (read here, once)."""
        family = teacher_family(self.teacher_dir)
        if family.name != task.name:
            raise UserError(
                f"the teacher is a {family.name} run, not {task.name}", where=self.teacher_dir
            )
        if os.path.abspath(output_dir) == os.path.abspath(self.teacher_dir):
            raise UserError(
                "the output is the teacher", where="--output_dir", fix="pass a new directory"
            )
        teacher = teacher_encoder_config(self.teacher_dir)
        student = student_config(teacher, self.config.student_layers, self.config.student_config)
        if self.config.hidden_weight and student.hidden_size != teacher.hidden_size:
            raise UserError(
                f"hidden states of {student.hidden_size} and {teacher.hidden_size} units cannot "
                "be compared",
                where="--hidden_weight",
                fix="leave it out, or keep the teacher's hidden_size",
            )
        if self.config.unlabeled_file:
            is_pair = bool(read_task_file(self.teacher_dir).get("is_pair", False))
            self.unlabeled = read_unlabeled(self.config.unlabeled_file, family.name, is_pair)

    def build(
        self, task: FinetuneTask, inputs: TaskInputs, precision: str
    ) -> tuple[TaskInfo, keras.Model, str]:
        """(the teacher's info, the student, the teacher's tokenizer); loads the teacher."""
        where = os.path.join(self.teacher_dir, TASK_FILE)
        info = task.info_class.from_json(read_task_file(self.teacher_dir), where)
        task.check(inputs, info)
        self.teacher = load_finetuned_model(self.teacher_dir)
        encoder = AlbertEncoder(self.student_config(), dtype=precision)
        student = task.build_model(encoder, info, precision)
        initialize_from_teacher(student, self.teacher)
        return info, student, run_spm_file(self.teacher_dir)

    def transfer_set(self, data: TrainingData, featurizer: Any) -> TrainingData:
        """What the student trains on: the family's training `data`, plus the unlabeled
        file's examples (label weight 0) when one was given."""
        if self.unlabeled is None:
            return data
        return with_unlabeled(data, self.unlabeled, featurizer)

    def trainer(self, student: keras.Model, task: FinetuneTask, info: TaskInfo) -> keras.Model:
        """Keras's `Distiller` of the student: the family's loss on the teacher's outputs and,
        with `hidden_weight`, the hidden states the head reads."""
        config = self.config
        losses = [task.distillation_loss(info, config.temperature)]
        weights = [1.0]
        if config.hidden_weight:
            # The head's input, as the dropout before it passes it on: a layer called once
            # in the task model's graph (the encoder's own graph makes its `output` another's).
            losses.append(
                keras.distillation.FeatureDistillation(
                    loss="mse",
                    teacher_layer_name=self.teacher.dropout.name,
                    student_layer_name=student.dropout.name,
                )
            )
            weights.append(config.hidden_weight)
        return LabelWeightedDistiller(
            self.teacher,
            student,
            losses,
            distillation_loss_weights=weights,
            student_loss_weight=config.label_weight,
        )

    def record(self, output_dir: str, student: keras.Model) -> None:
        """Writes `distillation.json`: the settings, both shapes and parameter counts."""
        values = {
            **dataclasses.asdict(self.config),
            "teacher": os.path.abspath(self.teacher_dir),
            "unlabeled_file": os.path.abspath(self.unlabeled.path) if self.unlabeled else "",
            "teacher_shape": describe(self.teacher.encoder.config),
            "student_shape": describe(student.encoder.config),
            "teacher_parameters": self.teacher.count_params(),
            "student_parameters": student.count_params(),
            "unlabeled_examples": len(self.unlabeled) if self.unlabeled else 0,
        }
        atomic_write_text(os.path.join(output_dir, DISTILLATION_FILE), json.dumps(values, indent=2))


class LabelWeightedDistiller(keras.distillation.Distiller):
    """Keras's `Distiller` whose label loss takes the batch's sample weights.

    Keras 3.15.1's `Distiller.compute_loss` leaves `sample_weight` unused; the transfer set's
    unlabeled examples carry weight 0 (`transfer_set`), so their placeholder labels must not
    count. The teacher's terms stay unweighted: they cover every example. Without sample
    weights it is Keras's `Distiller` unchanged.
    """

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        if sample_weight is None:
            return super().compute_loss(x, y, y_pred, None, training)
        label_losses = self._student_loss  # Set by `compile`: the family's loss(es).
        self._student_loss = keras.tree.map_structure(
            lambda loss: functools.partial(loss, sample_weight=sample_weight), label_losses
        )
        try:
            return super().compute_loss(x, y, y_pred, sample_weight, training)
        finally:
            self._student_loss = label_losses
