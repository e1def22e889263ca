"""Statistics of pretraining TFRecords (ours or the original's), to compare data sets.

Reads the original schema and reports: instance count, length histogram and share at full
length, masked share of real pieces, [MASK] / kept / random shares, masked n-gram lengths
in words, and the SOP/NSP label balance.

N-gram lengths are read back from the records: a run of consecutive masked whole words
(`token_boundary` marks word starts). Two n-grams that happen to touch read as one longer
run, so this distribution is shifted towards longer runs relative to the sampled n.

With the pieces' lengths (`piece_characters`, from the SentencePiece model) it also measures
the masked whole-word units (`word_units`): how many, and their mean length in characters
(and the runs'). The builder's manifest beside the records, when there, adds how the units
were made (`--word_segmenter`) and what only the build could see: the share of masked units
that are exactly one segmenter word, and the segmenter's mean word length. `format_statistics`
prints the original ALBERT's figures (REFERENCE.md, WikiText-2) beside ours where they apply.

Example:
    >>> stats = pretraining_data_statistics([f"{pretrain_dir}/part-00000-of-00001.tfrecord"])
    >>> round(stats["masked_share_of_real_tokens"], 2)
    0.15
"""

from __future__ import annotations

import collections
import json
import os

import numpy as np
import tensorflow as tf

from albert_tf.errors import UserError
from albert_tf.file_names import MANIFEST_FILE, MANIFEST_SUFFIX
from albert_tf.inputs.pretrain_input import find_unreadable_file, pretraining_feature_spec

# The original create_pretraining_data.py on WikiText-2 (REFERENCE.md section 3).
ORIGINAL_MASKED_SHARE = {128: 0.149, 512: 0.061}
ORIGINAL_NGRAM_SHARES = "55 / 27 / 18 %"


def _accumulate(
    counts: collections.Counter,
    runs: collections.Counter,
    batch,
    mask_id: int,
    piece_characters: np.ndarray | None = None,
):
    input_ids = batch["input_ids"]
    real = batch["input_mask"].astype(bool)
    lengths = real.sum(axis=1)
    weights = batch["masked_lm_weights"] > 0
    positions = batch["masked_lm_positions"]
    labels = batch["masked_lm_ids"]
    rows = np.repeat(np.arange(len(input_ids)), weights.shape[1]).reshape(weights.shape)
    at_position = input_ids[rows, positions]
    counts["instances"] += len(input_ids)
    counts["real_tokens"] += int(lengths.sum())
    counts["full_length"] += int((lengths == input_ids.shape[1]).sum())
    counts["masked"] += int(weights.sum())
    counts["sum_instance_masked_share_ppm"] += int(1e6 * (weights.sum(axis=1) / lengths).sum())
    counts["replaced_mask"] += int((weights & (at_position == mask_id)).sum())
    counts["kept"] += int((weights & (at_position != mask_id) & (at_position == labels)).sum())
    counts["label_1"] += int((batch["next_sentence_labels"][:, 0] == 1).sum())
    counts["segment_b_tokens"] += int(batch["segment_ids"].sum())
    for length in lengths.tolist():
        counts[f"length_{length}"] += 1
    masked = np.zeros(input_ids.shape, dtype=bool)
    masked[rows[weights], positions[weights]] = True
    starts = masked & batch["token_boundary"].astype(bool)
    previous = np.concatenate([np.zeros((len(masked), 1), bool), masked[:, :-1]], axis=1)
    run_start = (starts & ~previous)[starts]
    run_id = np.cumsum(run_start)
    for length, number in collections.Counter(np.bincount(run_id)[1:].tolist()).items():
        runs[length] += number
    unit_start = batch["token_boundary"].astype(bool) | ~previous
    counts["masked_units"] += int((masked & unit_start).sum())
    if piece_characters is not None:
        counts["masked_characters"] += int(piece_characters[labels[weights]].sum())


def pretraining_data_statistics(
    paths: list[str],
    mask_id: int = 4,
    batch_size: int = 1024,
    piece_characters: np.ndarray | None = None,
) -> dict:
    """Statistics of TFRecord files in the pretraining schema (lengths read from the data).

    Args:
        paths: TFRecord files.
        mask_id: id of [MASK] (4 in the ALBERT layout), to tell [MASK] / kept / random.
        batch_size: records parsed at a time.
        piece_characters: int [vocab], characters per piece (`word_units.piece_characters`);
            adds the masked units' and runs' mean length in characters.

    Raises:
        UserError: a file is truncated or corrupt (named), or the first file holds no record.
    """
    try:
        return _statistics(paths, mask_id, batch_size, piece_characters)
    except tf.errors.DataLossError as error:
        path, reason = find_unreadable_file(",".join(paths)) or (",".join(paths), error.message)
        raise UserError(
            f"corrupt or truncated TFRecord file ({reason.strip()})",
            where=path,
            fix="regenerate it",
        ) from error
    except StopIteration:
        raise UserError("holds no records", where=paths[0], fix="regenerate it") from None


def _statistics(
    paths: list[str], mask_id: int, batch_size: int, piece_characters: np.ndarray | None
) -> dict:
    first = tf.train.Example.FromString(next(iter(tf.data.TFRecordDataset(paths[:1]))).numpy())
    max_seq_length = len(first.features.feature["input_ids"].int64_list.value)
    predictions = len(first.features.feature["masked_lm_positions"].int64_list.value)
    spec = pretraining_feature_spec(max_seq_length, predictions)
    dataset = (
        tf.data.TFRecordDataset(paths)
        .batch(batch_size)
        .map(lambda records: tf.io.parse_example(records, spec))
    )
    counts: collections.Counter = collections.Counter()
    runs: collections.Counter = collections.Counter()
    for batch in dataset.as_numpy_iterator():
        _accumulate(counts, runs, batch, mask_id, piece_characters)
    instances = max(counts["instances"], 1)
    masked = max(counts["masked"], 1)
    total_runs = max(sum(runs.values()), 1)
    histogram = {
        int(key.split("_")[1]): value for key, value in counts.items() if key.startswith("length_")
    }
    return {
        "max_seq_length": max_seq_length,
        "max_predictions_per_seq": predictions,
        "instances": counts["instances"],
        "share_full_length": counts["full_length"] / instances,
        "mean_length": counts["real_tokens"] / instances,
        "length_histogram": dict(sorted(histogram.items())),
        "masked_share_of_real_tokens": counts["masked"] / max(counts["real_tokens"], 1),
        "mean_instance_masked_share": counts["sum_instance_masked_share_ppm"] / 1e6 / instances,
        "mask_kept_random_shares": [
            counts["replaced_mask"] / masked,
            counts["kept"] / masked,
            (counts["masked"] - counts["replaced_mask"] - counts["kept"]) / masked,
        ],
        "masked_run_words_shares": {n: runs[n] / total_runs for n in sorted(runs)},
        "label_1_share": counts["label_1"] / instances,
        "masked_units": counts["masked_units"],
        "mean_characters_per_masked_unit": (
            counts["masked_characters"] / max(counts["masked_units"], 1)
            if piece_characters is not None
            else None
        ),
        "mean_characters_per_masked_run": (
            counts["masked_characters"] / total_runs if piece_characters is not None else None
        ),
    }


def format_statistics(stats: dict, bins: int = 8) -> str:
    """A readable report of `pretraining_data_statistics`."""
    length = stats["max_seq_length"]
    edges = np.linspace(0, length, bins + 1).astype(int)
    histogram = np.zeros(bins, dtype=np.int64)
    for value, number in stats["length_histogram"].items():
        histogram[min(np.searchsorted(edges, value, side="right") - 1, bins - 1)] += number
    total = max(stats["instances"], 1)
    mask, kept, rand = stats["mask_kept_random_shares"]
    runs = " / ".join(f"{n}: {share:.1%}" for n, share in stats["masked_run_words_shares"].items())
    original = ORIGINAL_MASKED_SHARE.get(length)
    original_share = f"   (original, WikiText-2: {original:.1%})" if original else ""
    lines = [
        f"instances                       {stats['instances']}",
        f"max_seq_length / predictions    {length} / {stats['max_predictions_per_seq']}",
        f"share at full length            {stats['share_full_length']:.1%}",
        f"mean length                     {stats['mean_length']:.1f}",
        f"masked share of real tokens     {stats['masked_share_of_real_tokens']:.1%}"
        + original_share,
        f"  mean over instances           {stats['mean_instance_masked_share']:.1%}",
        f"[MASK] / kept / random          {mask:.1%} / {kept:.1%} / {rand:.1%}"
        "   (original: 80 / 10 / 10 %)",
        f"masked runs, in words           {runs}"
        f"   (original sampled n: {ORIGINAL_NGRAM_SHARES}; touching n-grams read as one run)",
        *_unit_lines(stats),
        f"label 1 (SOP swapped / NSP)     {stats['label_1_share']:.1%}",
        "length histogram:",
    ]
    for index in range(bins):
        share = histogram[index] / total
        lines.append(
            f"  [{edges[index]:4d}, {edges[index + 1]:4d}]  {share:6.1%}  " + "#" * int(50 * share)
        )
    return "\n".join(lines)


def _unit_lines(stats: dict) -> list[str]:
    """The whole-word unit lines of `format_statistics` (those the statistics hold)."""
    lines = [f"masked units (whole-word units)  {stats.get('masked_units', 0)}"]
    if stats.get("mean_characters_per_masked_unit") is not None:
        lines.append(
            "  mean characters per unit / run "
            f"{stats['mean_characters_per_masked_unit']:.2f} / "
            f"{stats['mean_characters_per_masked_run']:.2f}"
        )
    build = stats.get("build")
    if build:
        lines.append(f"word units (from the manifest)  segmenter {build['word_segmenter']}")
        lines.append(f"  {build['rule']}")
        share = build.get("whole_word_share_of_masked_units")
        if share is not None:
            lines.append(
                f"  masked units that are one word {share:.1%} (of those in text without spaces)"
            )
        word = build.get("mean_characters_per_word")
        if word is not None:
            lines.append(f"  mean characters per word       {word:.2f} (the segmenter's, all text)")
    return lines


def build_manifest_statistics(paths: list[str]) -> dict | None:
    """What the build's manifest beside `paths` adds to their statistics (see module
    docstring); None when there is none (records copied elsewhere, the original's)."""
    directory = os.path.dirname(paths[0])
    candidates = [os.path.join(directory, MANIFEST_FILE), paths[0] + MANIFEST_SUFFIX]
    found = [path for path in candidates if os.path.isfile(path)]
    if not found:
        return None
    with open(found[0], encoding="utf-8") as handle:
        manifest = json.load(handle)
    units = manifest.get("word_units", {})
    statistics = manifest.get("statistics", {})
    return {
        "word_segmenter": units.get("word_segmenter", "none (built before word units)"),
        "rule": units.get("rule", "units: pieces starting with '▁' or ASCII punctuation"),
        "whole_word_share_of_masked_units": statistics.get("whole_word_share_of_masked_units"),
        "mean_characters_per_word": statistics.get("mean_characters_per_word"),
    }


def masked_record_lines(path: str, processor, count: int) -> list[str]:
    """The first `count` records of `path` as text: the original pieces ("▁" shown as a
    space), each masked whole-word unit in ⟦ ⟧ (a run of n units shows as n brackets)."""
    lines = []
    for raw in tf.data.TFRecordDataset([path]).take(count):
        feature = tf.train.Example.FromString(raw.numpy()).features.feature
        values = {name: np.array(feature[name].int64_list.value) for name in feature}
        weights = np.array(feature["masked_lm_weights"].float_list.value) > 0
        ids = values["input_ids"].copy()
        positions = values["masked_lm_positions"][weights]
        ids[positions] = values["masked_lm_ids"][weights]
        masked = np.zeros(len(ids), dtype=bool)
        masked[positions] = True
        boundary = values["token_boundary"].astype(bool)
        text, open_unit = [], False
        for position in range(int(values["input_mask"].sum())):
            starts_unit = boundary[position] or not (position and masked[position - 1])
            if open_unit and (not masked[position] or starts_unit):
                text.append("⟧")
                open_unit = False
            if masked[position] and starts_unit:
                text.append("⟦")
                open_unit = True
            text.append(processor.id_to_piece(int(ids[position])).replace("\u2581", " "))
        lines.append("".join(text) + ("⟧" if open_unit else ""))
    return lines
