"""`FinetuneTask`: what a task family supplies to the one fine-tuning driver.

The driver (`albert_tf.finetune.driver.run_finetuning`) does what every family shares: the
output lock, seed, strategy and precision, reading and checking every input before anything
is written, building a new model from a pretrained encoder or loading a finished run,
training (the optimizer recipe, resumable `fit`, checkpoints, scalars), writing `task.json`,
`eval_results.json` and the evaluation scalars, and the SavedModel export. A family says only
what is its own, as the methods of a `FinetuneTask` subclass:

    read_inputs(saved)              read and check the files the asked steps need (the
                                    family's `TaskInputs` subclass, typed)
    info_values(inputs)             what its typed `task.json` (a `TaskInfo` subclass) holds
                                    besides the config's same-named fields
    check(inputs, info)             inputs and a run's info agree (tags, labels, versions)
    featurizer(spm_model_file, info), build_model(encoder, info, dtype)
    training_data(run), loss(info), metrics(info)
    evaluate(run)                   dev scores as a flat dict
    predict(run)                    prediction files; returns their paths
    serving_layers(run), serving_signatures(run, predict, layers)
    distillation_loss(info, temperature)
                                    what a student learns from its teacher's outputs
                                    (`albert-tf distill`; optional)

A subclass says its name and config class as class keywords, and the one table of families
(`albert_tf.finetune.families.FAMILIES`) says where it lives; defining or importing it
registers nothing:

    class TaggingTask(FinetuneTask, family="tagging", config_class=TaggingConfig):
        info_class = TaggingInfo
        ...

`docs/adding_a_task_family.md` walks through a small one.
"""

from __future__ import annotations

import abc
import dataclasses
import os
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import keras
import tensorflow as tf

from albert_tf.errors import UserError
from albert_tf.export.endpoints import Endpoints
from albert_tf.export.finetuned_run import read_task_file, write_task_file
from albert_tf.export.task_export import Predict
from albert_tf.file_names import TASK_FILE
from albert_tf.finetune.families import get_family
from albert_tf.finetune.finetune_config import FinetuneConfig
from albert_tf.finetune.prediction import predict_outputs
from albert_tf.finetune.pretrained_encoder import PretrainedEncoder
from albert_tf.models.encoder import AlbertEncoder

# The `task.json` key naming the family that wrote it (runs from before it have none).
FAMILY_KEY = "family"


def family_of_run(output_dir: str, fix: str) -> type[FinetuneTask]:
    """The family a finished run's (or converted task model's) `task.json` names, imported
    from the families' table; a `UserError` ending in `fix` when it names none (a run from
    before families were recorded), or one listing the families when it names an unknown one."""
    values = read_task_file(output_dir)
    if FAMILY_KEY not in values:
        raise UserError(
            "task.json names no task family (a run from before families were recorded)",
            where=os.path.join(output_dir, TASK_FILE),
            fix=fix,
        )
    return get_family(values[FAMILY_KEY])


@dataclasses.dataclass(frozen=True)
class TaskInfo:
    """What a run's `task.json` holds: enough to rebuild its featurizer and read its outputs.

    Families subclass it with their own fields; `to_json` and `from_json` round-trip (tuples
    are JSON lists), and the JSON keys are the field names, so the files of earlier runs load.

    Attributes:
        task: the task's name (e.g. "sst-2", "squad", "race", "tagging").
        max_seq_length: the packed length the model was fine-tuned at.
        do_lower_case: the tokenizer's casing.
    """

    task: str
    max_seq_length: int
    do_lower_case: bool

    def to_json(self) -> dict[str, Any]:
        values = dataclasses.asdict(self)
        return {name: list(v) if isinstance(v, tuple) else v for name, v in values.items()}

    @classmethod
    def from_json(cls, values: Mapping[str, Any], where: str = "task.json") -> TaskInfo:
        """The info of `values` (a `task.json`); a `UserError` naming `where` when incomplete."""
        fields = dataclasses.fields(cls)
        required = [f.name for f in fields if f.default is dataclasses.MISSING]
        missing = [name for name in required if name not in values]
        if missing:
            raise UserError(
                f"task.json has no {', '.join(missing)}",
                where=where,
                fix="point --output_dir at a finished run of this task family",
            )
        hints = typing.get_type_hints(cls)
        known = {f.name: values[f.name] for f in fields if f.name in values}
        return cls(**{name: _from_json(value, hints[name]) for name, value in known.items()})

    def replace(self, **changes: Any) -> TaskInfo:
        return dataclasses.replace(self, **changes)


def _from_json(value: Any, annotation: Any) -> Any:
    """JSON lists back to the tuples the dataclass holds."""
    return tuple(value) if isinstance(value, list) and _is_tuple(annotation) else value


def _is_tuple(annotation: Any) -> bool:
    """`tuple[...]`, or a union holding one (`tuple[str, ...] | None`)."""
    if typing.get_origin(annotation) is tuple:
        return True
    return any(_is_tuple(kind) for kind in typing.get_args(annotation))


@dataclasses.dataclass(frozen=True)
class TaskInputs:
    """A run's data, read and checked before anything is written.

    Each family subclasses it with typed fields (None where a step was not asked for), e.g.
    `ClassificationInputs(spec, train, dev, test)`; the family's steps read it from `run.inputs`.
    """


@dataclasses.dataclass
class TrainingData:
    """What a family trains on: unbatched, ordered `(features, labels)` and how many there are.

    The driver shuffles, repeats and batches it (by length with `--bucket_width`).

    Attributes:
        examples: one `(features, labels)` element per training example (a window, a question).
        count: the number of elements (Keras epochs are counted in them).
        results: what the family reports of it (e.g. `train_windows`).
        label_counts: how often each label id is trained on, where the family's head has one
            unit per label and wants to start at their prior (`DenseTaskModel.
            start_at_label_prior`); None keeps the head's zero bias.
    """

    examples: tf.data.Dataset
    count: int
    results: dict[str, Any] = dataclasses.field(default_factory=dict)
    label_counts: Sequence[int] | None = None


@dataclasses.dataclass
class FinetuneRun:
    """One run's state, as the driver hands it to the family's steps."""

    config: FinetuneConfig
    output_dir: str
    strategy: tf.distribute.Strategy
    info: TaskInfo
    inputs: TaskInputs
    featurizer: Any
    model: keras.Model
    family: str
    # Work that evaluate and predict share (e.g. a file's logits), computed once: `shared`.
    _shared: dict[str, Any] = dataclasses.field(default_factory=dict, repr=False)

    def path(self, *parts: str) -> str:
        """A path under the output directory."""
        return os.path.join(self.output_dir, *parts)

    def predict_outputs(self, dataset: tf.data.Dataset, position_fill: float | None = None):
        """The model's float32 outputs over batches of features, at the speed of its export."""
        return predict_outputs(self.model, dataset, self.strategy, position_fill)

    def shared(self, key: str, compute: Callable[[], Any]) -> Any:
        """`compute()`, once per run and `key`: what both evaluation and prediction need."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]

    def update_info(self, info: TaskInfo) -> None:
        """Replaces the run's info and its `task.json` (e.g. a threshold chosen on dev)."""
        self.info = info
        write_task_file(self.output_dir, {FAMILY_KEY: self.family, **info.to_json()})


class FinetuneTask(abc.ABC):
    """A task family on the driver; see the module docstring for what to implement.

    Class attributes (`family=` and `config_class=` given as class keywords, which only set
    `name` and `config_class`; not `name=`, which Python 3.10's `ABCMeta` takes for the class's
    own name; the family's row in `albert_tf.finetune.families.FAMILIES` must say the same):
        name: the family's name (the `family` keyword), also written to `task.json`.
        config_class: its `FinetuneConfig` subclass (the script's flags come from it).
        info_class: its `TaskInfo` subclass (its `task.json`); default `TaskInfo`.
        bucketing: whether `--bucket_width` applies: its training features are packed texts
            whose `input_mask` says their length (labels shaped like `input_mask`, one per
            position, are cut with them).
    """

    name: ClassVar[str]
    config_class: ClassVar[type[FinetuneConfig]]
    info_class: ClassVar[type[TaskInfo]] = TaskInfo
    bucketing: ClassVar[bool] = True

    def __init_subclass__(
        cls,
        family: str | None = None,
        config_class: type[FinetuneConfig] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        if family is not None:  # Sets the attributes only: the families' table finds it.
            cls.name, cls.config_class = family, config_class

    def __init__(self, config: FinetuneConfig):
        if not isinstance(config, self.config_class):
            raise TypeError(f"{type(self).__name__} takes a {self.config_class.__name__}")
        self.config = config

    # -- which steps run ---------------------------------------------------
    def evaluates(self) -> bool:
        """Whether `evaluate` runs (`--do_eval`)."""
        return self.config.do_eval

    def predicts(self) -> bool:
        """Whether `predict` runs (`--do_predict`)."""
        return self.config.do_predict

    # -- inputs and the run's info ----------------------------------------
    @abc.abstractmethod
    def read_inputs(self, saved: TaskInfo | None) -> TaskInputs:
        """Reads and checks every file the asked steps need (`saved`: a finished run's info,
        None when training a new one). Nothing is written yet: raise `UserError` freely."""

    def new_info(self, inputs: TaskInputs, pretrained: PretrainedEncoder) -> TaskInfo:
        """The info of a new run: its fields named like the config's come from the config,
        `do_lower_case` from the encoder's tokenizer, the rest from `info_values`."""
        names = [field.name for field in dataclasses.fields(self.info_class)]
        values = {name: getattr(self.config, name) for name in names if hasattr(self.config, name)}
        values["do_lower_case"] = pretrained.do_lower_case
        return self.info_class(**{**values, **self.info_values(inputs)})

    @abc.abstractmethod
    def info_values(self, inputs: TaskInputs) -> dict[str, Any]:
        """The new run's info values that are not the config's: `task`, and what the training
        data says (labels, a baseline), under the info's field names."""

    def check(self, inputs: TaskInputs, info: TaskInfo) -> None:  # noqa: B027 - optional step
        """Raises a `UserError` where `inputs` or this config disagree with the run's `info`."""

    # -- model ---------------------------------------------------------------
    @abc.abstractmethod
    def featurizer(self, spm_model_file: str, info: TaskInfo) -> Any:
        """What turns the run's raw inputs into features (built under the run's strategy)."""

    @abc.abstractmethod
    def build_model(self, encoder: AlbertEncoder, info: TaskInfo, dtype: str) -> keras.Model:
        """A new task model around the pretrained `encoder` (under the run's strategy)."""

    # -- training -----------------------------------------------------------
    @abc.abstractmethod
    def training_data(self, run: FinetuneRun) -> TrainingData:
        """The training examples, featurized, in order."""

    @abc.abstractmethod
    def loss(self, info: TaskInfo) -> Any:
        """The Keras loss of the model's outputs."""

    def metrics(self, info: TaskInfo) -> list[Any]:
        """Keras metrics reported while training."""
        return []

    # -- evaluation and prediction ----------------------------------------
    @abc.abstractmethod
    def evaluate(self, run: FinetuneRun) -> dict[str, Any]:
        """Scores on the dev data, flat (`dev/accuracy`, ...); the driver writes them to
        `eval_results.json` and their float values as `logs/eval` scalars."""

    def predict(self, run: FinetuneRun) -> dict[str, Any]:
        """Writes predictions for the test data; returns e.g. `{"predictions": paths}`."""
        raise UserError(f"the {self.name} task family writes no predictions", where="--do_predict")

    # -- distillation ---------------------------------------------------------
    def distillation_loss(self, info: TaskInfo, temperature: float) -> Any:
        """What a student learns from its teacher's outputs, a
        `keras.distillation.DistillationLoss` (`albert_tf.finetune.distillation`); a family
        that does not override it cannot be distilled."""
        raise UserError(f"the {self.name} task family cannot be distilled", where="--teacher")

    # -- serving --------------------------------------------------------------
    @abc.abstractmethod
    def serving_layers(self, run: FinetuneRun) -> list[keras.layers.Layer]:
        """The featurizer layers the signatures call, built (the export saves them)."""

    @abc.abstractmethod
    def serving_signatures(
        self, run: FinetuneRun, predict: Predict, layers: list[keras.layers.Layer]
    ) -> Endpoints:
        """Signature name -> (function, input specs), given the model's forward pass and the
        `serving_layers`."""
