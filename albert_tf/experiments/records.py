"""NSP and SOP records from the same documents and tokenizer, built once per experiment.

`experiment_dir/data/<objective>/<split>/` holds the data builder's ordinary output
(shards + manifest.json, the manifest written last). Every cell reads these, so cells
differ only in what they train, never in their data. A build that was interrupted (no
manifest) is rebuilt; a finished one is reused.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os

from albert_tf.data.builder import (
    MANIFEST_NAME,
    BuilderOptions,
    build_pretraining_data,
    document_batches,
)
from albert_tf.experiments.scale import ExperimentScale
from albert_tf.tokenization.model_proto import load_albert_model_proto

OBJECTIVES = ("sop", "nsp")
SPLITS = ("train", "eval")


@dataclasses.dataclass(frozen=True)
class ExperimentInputs:
    """The text an experiment reads: train text, held-out text and the tokenizer."""

    input_file: str
    eval_file: str
    spm_model_file: str
    input_format: str = "text"
    do_lower_case: bool = True


def records_dir(experiment_dir: str, objective: str, split: str) -> str:
    return os.path.join(experiment_dir, "data", objective, split)


def records_pattern(experiment_dir: str, objective: str, split: str) -> str:
    return os.path.join(records_dir(experiment_dir, objective, split), "*.tfrecord")


def check_inputs(inputs: ExperimentInputs) -> None:
    """Fails (a `UserError` naming the file) on a bad tokenizer or text before anything is
    written: the records are built only after `experiment.json`.

    The texts are checked up to their first batch of documents (missing, empty, not UTF-8 at
    the start); the build itself checks the rest.
    """
    load_albert_model_proto(inputs.spm_model_file)
    for path in (inputs.input_file, inputs.eval_file):
        options = BuilderOptions(
            input_file=path,
            spm_model_file=inputs.spm_model_file,
            output_dir="unused",  # Reading only.
            input_format=inputs.input_format,
        )
        next(document_batches(options), None)


def build_records(
    experiment_dir: str,
    inputs: ExperimentInputs,
    scale: ExperimentScale,
    parallelism: int = 1,
    segmented: dict[str, str] | None = None,
) -> dict[str, dict]:
    """Builds (or reuses) train and eval records of both objectives, and SOP records with
    word segmenters (`segmented`: records name -> `--word_segmenter`, e.g. `{"sop_jieba":
    "jieba"}`; their units differ, nothing else); returns the manifests by `"<name>/<split>"`."""
    record_sets = {objective: (objective, "none") for objective in OBJECTIVES}
    record_sets.update({name: ("sop", segmenter) for name, segmenter in (segmented or {}).items()})
    manifests = {}
    for name, (objective, segmenter) in record_sets.items():
        for split in SPLITS:
            directory = records_dir(experiment_dir, name, split)
            manifest_path = os.path.join(directory, MANIFEST_NAME)
            if not os.path.exists(manifest_path):
                logging.info("Building %s %s records in %s.", name, split, directory)
                options = BuilderOptions(
                    input_file=inputs.input_file if split == "train" else inputs.eval_file,
                    spm_model_file=inputs.spm_model_file,
                    output_dir=directory,
                    do_lower_case=inputs.do_lower_case,
                    input_format=inputs.input_format,
                    max_seq_length=scale.max_seq_length,
                    max_predictions_per_seq=scale.max_predictions_per_seq,
                    random_next_sentence=objective == "nsp",
                    dupe_factor=scale.dupe_factor if split == "train" else 1,
                    random_seed=scale.seed,
                    parallelism=parallelism,
                    overwrite=True,  # only ever replaces an unfinished build
                    word_segmenter=segmenter,
                )
                build_pretraining_data(options)
            with open(manifest_path, encoding="utf-8") as handle:
                manifests[f"{name}/{split}"] = json.load(handle)
    return manifests
