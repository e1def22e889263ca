"""`albert-tf distill` of the tiny tagging run: a 1-layer student, also trained on unlabeled
sentences (`--unlabeled_file`), exported and served with text in."""

from __future__ import annotations

import pytest
import tensorflow as tf

from tests.finetune.conftest import distill, same_task, write_lines
from tests.finetune.tagging.conftest import SENTENCES

pytestmark = pytest.mark.slow  # Distills in a subprocess.


@pytest.mark.slow  # Over 5 s: a distillation run and its export.
def test_distilled_tagger_is_a_run_of_its_family(tagging_run, tmp_path):
    teacher_dir, _ = tagging_run
    output_dir = tmp_path / "student"
    texts = [" ".join(words) for words, _ in SENTENCES]
    unlabeled = write_lines(tmp_path / "more.txt", texts)
    results = distill(
        teacher_dir,
        str(output_dir),
        "--temperature=3",
        "--label_weight=0.3",
        f"--unlabeled_file={unlabeled}",
    )
    # Windows of the encoder's length: a long sentence is more than one.
    assert results["train_unlabeled_examples"] >= len(SENTENCES)
    assert "dev/f1" in results and "baseline/f1" in results
    assert results["train/distillation_loss"] >= 0.0
    assert same_task(output_dir, teacher_dir)
    outputs = tf.saved_model.load(results["saved_model"]).signatures["tag"](text=tf.constant(texts))
    tags = outputs["tags"].numpy()
    for index, (words, _) in enumerate(SENTENCES):
        assert [w.decode() for w in outputs["words"].numpy()[index][: len(words)]] == words
        assert {tag.decode() for tag in tags[index][: len(words)]} <= {
            "O",
            "B-PER",
            "I-PER",
            "B-LOC",
            "I-LOC",
        }
