"""Growing a checkpoint to an extended vocabulary, from every source format: old rows and every
other weight untouched, outputs on old ids equal to the source's within 1e-6, new rows the mean
of the old pieces that spelled them; refusals before anything is written."""

from __future__ import annotations

import os

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.convert.convert import build_model, load_model, save_model
from albert_tf.convert.vocabulary_growth import grow_checkpoint
from albert_tf.convert.weight_names import split_model
from albert_tf.errors import UserError
from albert_tf.models import AlbertClassifier, AlbertEncoder
from albert_tf.tokenization.model_proto import read_model_proto
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from albert_tf.tokenization.vocabulary_extension import extend_sentencepiece
from tests.conftest import TINY_ALBERT, TINY_VOCAB_SIZE
from tests.domain_text import write_domain_text

CONFIG = AlbertConfig(**TINY_ALBERT)
NEW_PIECES = 40
TOLERANCE = 1e-6


@pytest.fixture(scope="module")
def extended_model_file(tiny_model_file, tmp_path_factory) -> str:
    directory = tmp_path_factory.mktemp("growth")
    domain = write_domain_text(directory)
    extension = extend_sentencepiece(tiny_model_file, [domain], NEW_PIECES, str(directory / "x"))
    return extension.model_file


def random_model(heads: bool, seed: int = 0, config: AlbertConfig = CONFIG) -> keras.Model:
    """Every weight random (biases, LayerNorms too), so a misplaced one shows."""
    model = build_model(config, heads)
    rng = np.random.default_rng(seed)
    for variable in model.weights:
        value = rng.normal(0.0, 0.2, variable.shape) + ("gamma" in variable.path)
        variable.assign(value.astype("float32"))
    return model


def outputs(model: keras.Model, ids: np.ndarray) -> dict[str, np.ndarray]:
    encoder, pretrainer = split_model(model)
    inputs = {"input_word_ids": ids, "input_mask": np.ones_like(ids), "input_type_ids": 0 * ids}
    result = {k: np.asarray(v) for k, v in encoder(inputs).items() if k.endswith("_output")}
    if pretrainer is not None:
        positions = np.tile(np.arange(ids.shape[1]), (len(ids), 1))
        features = {"input_ids": ids, "input_mask": 1 + 0 * ids, "segment_ids": 0 * ids}
        heads = pretrainer({**features, "masked_lm_positions": positions})
        result.update({name: np.asarray(value) for name, value in heads.items()})
    return result


def write_pretraining_run(model: keras.Model, directory: str) -> None:
    """What a pretraining run leaves: `ckpt-N` of the pretrainer, its config, `encoder.keras`."""
    checkpoint = tf.train.Checkpoint(model=model, step=tf.Variable(3, dtype=tf.int64))
    tf.train.CheckpointManager(checkpoint, directory, 1, checkpoint_name="ckpt").save(3)
    model.encoder.config.to_json_file(os.path.join(directory, "albert_config.json"))
    model.encoder.save(os.path.join(directory, "encoder.keras"))


@pytest.mark.parametrize(
    "fmt",
    [
        "albert_tf",  # a bundle (spm.model)
        "albert_tf_run",  # a pretraining workdir: the heads are in its checkpoint
        "tf1",
        "hf",
        pytest.param("keras_hub", marks=pytest.mark.slow),  # keras-hub's import
    ],
)
def test_grown_model_equals_the_source_on_old_ids(
    fmt, tiny_model_file, extended_model_file, tmp_path
):
    heads = fmt != "keras_hub"  # keras-hub's ALBERT has no sentence-order head: encoders only.
    source = random_model(heads)
    source_dir, old_spm = str(tmp_path / "source"), None
    if fmt == "albert_tf_run":
        fmt, old_spm = "albert_tf", tiny_model_file  # a run does not ship its tokenizer
        write_pretraining_run(source, source_dir)
    else:
        save_model(source, fmt, source_dir, tiny_model_file, bundle=True)
    output = grow_checkpoint(
        fmt, source_dir, extended_model_file, str(tmp_path / "g"), spm_model_file=old_spm
    )
    grown = load_model("albert_tf", output)
    size = TINY_VOCAB_SIZE + NEW_PIECES
    assert split_model(grown)[0].config == CONFIG.replace(vocab_size=size)
    assert (split_model(grown)[1] is None) == (not heads)
    with open(extended_model_file, "rb") as a, open(os.path.join(output, "spm.model"), "rb") as b:
        assert a.read() == b.read()  # The grown checkpoint ships the extended model.

    # Old rows and every other weight are the source's, bit for bit.
    grown_rows = {}
    for before, after in zip(source.weights, grown.weights, strict=True):
        value, grown_value = np.asarray(before), np.asarray(after)
        if after.shape != before.shape:
            grown_rows[after.path] = grown_value
            grown_value = grown_value[:TINY_VOCAB_SIZE]
        np.testing.assert_array_equal(grown_value, value, err_msg=after.path)
    tables = ["embeddings/word_embeddings/embeddings"] + ["masked_lm_head/output_bias"] * heads
    assert sorted(grown_rows) == sorted(tables)

    # On text of old pieces the grown model gives the source's outputs (the MLM logits over the
    # old ids; the new ids add columns).
    ids = np.random.default_rng(1).integers(5, TINY_VOCAB_SIZE, (3, 20))
    expected, actual = outputs(source, ids), outputs(grown, ids)
    assert sorted(actual) == sorted(expected)
    for name, value in expected.items():
        got = actual[name][..., :TINY_VOCAB_SIZE] if name == "mlm_logits" else actual[name]
        assert np.abs(got - value).max() <= TOLERANCE, name

    # A new word-start piece starts as the mean of the old pieces the old tokenizer gives for
    # its word; the output bias likewise.
    old_tokenizer = AlbertTokenizer(tiny_model_file)
    new_pieces = read_model_proto(extended_model_file).pieces[TINY_VOCAB_SIZE:]
    checked = 0
    for piece_id, piece in enumerate(new_pieces, start=TINY_VOCAB_SIZE):
        if not piece.piece.startswith("▁") or len(piece.piece) < 2:
            continue
        spelled = old_tokenizer.encode(piece.piece[1:])
        for table in grown_rows.values():
            old_table = table[:TINY_VOCAB_SIZE]
            expected = old_table[spelled].astype("float64").mean(0)
            np.testing.assert_allclose(table[piece_id], expected, rtol=1e-6, atol=1e-7)
        checked += 1
    assert checked >= 5


def test_refused_before_anything_is_written(tiny_model_file, extended_model_file, tmp_path):
    def refused(match: str, *args, **kwargs) -> None:
        output = str(tmp_path / "out")
        with pytest.raises(UserError, match=match) as error:
            grow_checkpoint(*args, output_path=output, **kwargs)
        assert "\n" not in str(error.value)
        assert not os.path.exists(output)

    # A checkpoint whose vocabulary is not the extended model's old one.
    small = str(tmp_path / "small")
    save_model(random_model(False, config=CONFIG.replace(vocab_size=250)), "albert_tf", small)
    refused(
        "has vocab_size 250, but its SentencePiece model .* has 300 pieces",
        "albert_tf", small, extended_model_file, spm_model_file=tiny_model_file,
    )  # fmt: skip
    refused("no SentencePiece model came with the checkpoint", "albert_tf", small,
            extended_model_file)  # fmt: skip
    # An extension of another model.
    source = str(tmp_path / "source")
    save_model(random_model(False), "albert_tf", source, extended_model_file)
    refused("is not an extension of|no more than", "albert_tf", source, tiny_model_file)
    # A fine-tuned task model.
    task = str(tmp_path / "task")
    save_model(AlbertClassifier(AlbertEncoder(CONFIG), num_outputs=2), "albert_tf", task,
               tiny_model_file)  # fmt: skip
    refused("a fine-tuned task model", "albert_tf", task, extended_model_file)
