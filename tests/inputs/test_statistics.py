"""Statistics read back from records agree with the builder's own counts."""

from __future__ import annotations

import glob
import os

import pytest

from albert_tf.data.builder import BuilderOptions, build_pretraining_data
from albert_tf.inputs.statistics import format_statistics, pretraining_data_statistics


def test_statistics_match_manifest(tmp_path, small_corpus, small_model_file):
    manifest = build_pretraining_data(
        BuilderOptions(
            input_file=small_corpus,
            spm_model_file=small_model_file,
            output_dir=str(tmp_path),
            max_seq_length=64,
            max_predictions_per_seq=10,
            dupe_factor=2,
        )
    )
    built = manifest["statistics"]
    stats = pretraining_data_statistics(sorted(glob.glob(os.path.join(tmp_path, "part-*"))))
    assert stats["instances"] == built["instances"]
    assert stats["max_seq_length"] == 64 and stats["max_predictions_per_seq"] == 10
    assert stats["share_full_length"] == pytest.approx(built["share_full_length"])
    assert stats["masked_share_of_real_tokens"] == pytest.approx(
        built["masked_share_of_real_tokens"]
    )
    assert stats["label_1_share"] == pytest.approx(built["label_1_share"])
    mask, kept, _ = stats["mask_kept_random_shares"]
    # A random replacement may draw the original piece: reads back as "kept".
    assert mask == pytest.approx(built["replacement_mask_kept_random"][0])
    assert kept >= built["replacement_mask_kept_random"][1] - 1e-9
    assert sum(stats["length_histogram"].values()) == stats["instances"]
    assert min(stats["masked_run_words_shares"]) == 1
    assert "share at full length" in format_statistics(stats)
