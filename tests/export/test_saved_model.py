"""export_saved_model: signatures equal the Keras model, hostile batches (tests/hostile_text.py),
load without albert_tf, CLI, bad input."""

import json
import os
import pathlib
import shutil
import textwrap

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.export.encoder_bundle import load_encoder
from albert_tf.export.saved_model import export_saved_model, load_albert_model
from albert_tf.models import AlbertEncoder, AlbertPretrainer
from albert_tf.runtime import Runtime
from albert_tf.tokenization import AlbertTokenizer
from albert_tf.tokenization.text_packing import pack_segments_reference
from tests.conftest import TINY_ALBERT, TINY_VOCAB_SIZE
from tests.fresh_process import run_without_albert_tf
from tests.hostile_text import HOSTILE_BATCHES, assert_serves, hostile_batch
from tests.warmup_replay import assert_replayed

SEQ_LENGTH = 24
TOP_K = 3
LONG_TEXT = " ".join(["the history of the valkyria series continues"] * 20)
TEXTS = ["Hello world.", "", "   ", "Café NAÏVE crème [MASK] brûlée", LONG_TEXT, "日本語 テキスト"]
MASKED_TEXTS = ["the [MASK] of the game", "no mask here", "", "[MASK] [mask] two masks", LONG_TEXT]


def _tiny_config(**overrides) -> AlbertConfig:
    return AlbertConfig(**{**TINY_ALBERT, **overrides})


@pytest.fixture(scope="module")
def sm_tokenizer(tiny_model_file) -> AlbertTokenizer:
    return AlbertTokenizer(tiny_model_file)


@pytest.fixture(scope="module")
def sm_pretrainer() -> AlbertPretrainer:
    keras.utils.set_random_seed(0)
    model = AlbertPretrainer(AlbertEncoder(_tiny_config(sharing="shared_attention")))
    # A non-zero MLM bias, so that a head that ignored it would fail the comparison.
    bias = model.masked_lm_head.output_bias
    bias.assign(np.random.default_rng(0).normal(size=bias.shape).astype("float32"))
    return model


@pytest.fixture(scope="module")
def sm_export_dir(tmp_path_factory, sm_pretrainer, tiny_model_file) -> str:
    export_dir = str(tmp_path_factory.mktemp("sm_export") / "albert")
    return export_saved_model(
        export_dir,
        sm_pretrainer,
        tiny_model_file,
        seq_length=SEQ_LENGTH,
        top_k=TOP_K,
        runtime=Runtime.plain(),
    )


@pytest.fixture(scope="module")
def sm_loaded(sm_export_dir):
    return tf.saved_model.load(sm_export_dir)


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
@pytest.mark.parametrize("name", list(HOSTILE_BATCHES))
def test_text_signatures_take_hostile_batches(sm_loaded, name):
    batch = hostile_batch(name)
    signatures = sm_loaded.signatures
    assert_serves(signatures["encode_text"], batch, text_a=batch)
    assert_serves(signatures["encode_text_pair"], batch, text_a=batch, text_b=batch)
    assert_serves(signatures["fill_mask"], batch, text=batch)


def _keras_encoder_outputs(encoder, inputs):
    outputs = encoder({k: tf.constant(v, tf.int32) for k, v in inputs.items()})
    return {k: np.asarray(outputs[k]) for k in ("sequence_output", "pooled_output")}


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
def test_signatures_and_attributes(sm_loaded, tiny_model_file, sm_export_dir):
    assert set(sm_loaded.signatures) == {
        "serving_default",
        "encode_text",
        "encode_text_pair",
        "fill_mask",
    }
    serving = sm_loaded.signatures["serving_default"]
    assert set(serving.structured_input_signature[1]) == {
        "input_word_ids",
        "input_mask",
        "input_type_ids",
    }
    assert set(serving.structured_outputs) == {"sequence_output", "pooled_output"}
    assert set(sm_loaded.signatures["encode_text_pair"].structured_input_signature[1]) == {
        "text_a",
        "text_b",
    }
    assert int(sm_loaded.seq_length) == SEQ_LENGTH and int(sm_loaded.top_k) == TOP_K
    assert bool(sm_loaded.do_lower_case) and int(sm_loaded.vocab_size) == TINY_VOCAB_SIZE
    asset_path = sm_loaded.sentencepiece_model_file.asset_path.numpy().decode()
    assert asset_path.startswith(os.path.join(sm_export_dir, "assets"))
    assert pathlib.Path(asset_path).read_bytes() == pathlib.Path(tiny_model_file).read_bytes()


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
def test_warmup_requests_replay(sm_export_dir):
    results = assert_replayed(sm_export_dir)
    assert set(results) == {"serving_default", "encode_text", "encode_text_pair", "fill_mask"}
    assert results["fill_mask"]["num_masks"].tolist() == [1]  # Real text with a [MASK].
    assert results["encode_text_pair"]["input_type_ids"].max() == 1  # A real pair.


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
def test_serving_default_equals_keras(sm_loaded, sm_pretrainer):
    rng = np.random.default_rng(1)
    inputs = {
        "input_word_ids": rng.integers(0, TINY_VOCAB_SIZE, size=(3, 20)).astype("int32"),
        "input_mask": (np.arange(20)[None, :] < np.array([[20], [7], [1]])).astype("int32"),
        "input_type_ids": rng.integers(0, 2, size=(3, 20)).astype("int32"),
    }
    got = sm_loaded.signatures["serving_default"](**{k: tf.constant(v) for k, v in inputs.items()})
    expected = _keras_encoder_outputs(sm_pretrainer.encoder, inputs)
    for name, values in expected.items():
        np.testing.assert_allclose(got[name].numpy(), values, atol=1e-5, rtol=0)


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
def test_encode_text_tokenizes_like_python_and_equals_keras(sm_loaded, sm_tokenizer, sm_pretrainer):
    got = sm_loaded.signatures["encode_text"](text_a=tf.constant(TEXTS))
    for row, text in enumerate(TEXTS):
        expected = pack_segments_reference(
            sm_tokenizer.encode(text), [], SEQ_LENGTH, sm_tokenizer.cls_id, sm_tokenizer.sep_id
        )
        for name, values in expected.items():
            assert got[name][row].numpy().tolist() == values, (name, text)
    inputs = {name: got[name].numpy() for name in expected}
    for name, values in _keras_encoder_outputs(sm_pretrainer.encoder, inputs).items():
        np.testing.assert_allclose(got[name].numpy(), values, atol=1e-5, rtol=0)


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
def test_encode_text_pair_packs_like_the_original(sm_loaded, sm_tokenizer):
    text_a = ["A short one.", LONG_TEXT, "", LONG_TEXT, "only a"]
    text_b = [LONG_TEXT, "and b", "", LONG_TEXT + " more", ""]
    got = sm_loaded.signatures["encode_text_pair"](
        text_a=tf.constant(text_a), text_b=tf.constant(text_b)
    )
    for row, (a, b) in enumerate(zip(text_a, text_b, strict=True)):
        expected = pack_segments_reference(
            sm_tokenizer.encode(a),
            sm_tokenizer.encode(b),
            SEQ_LENGTH,
            sm_tokenizer.cls_id,
            sm_tokenizer.sep_id,
        )
        for name, values in expected.items():
            assert got[name][row].numpy().tolist() == values, (name, row)


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
def test_encode_overrides_seq_length_and_checks_it(sm_loaded, sm_tokenizer):
    got = sm_loaded.encode(tf.constant([LONG_TEXT]), tf.constant(["b"]), tf.constant(50))
    assert got["input_word_ids"].shape == (1, 50)
    assert got["sequence_output"].shape == (1, 50, 32)
    expected = pack_segments_reference(
        sm_tokenizer.encode(LONG_TEXT), sm_tokenizer.encode("b"), 50, 2, 3
    )
    assert got["input_word_ids"][0].numpy().tolist() == expected["input_word_ids"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="max_position_embeddings"):
        sm_loaded.encode(tf.constant(["x"]), tf.constant([""]), tf.constant(65))


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
def test_fill_mask_equals_the_keras_head(sm_loaded, sm_pretrainer, sm_tokenizer):
    got = {
        k: v.numpy()
        for k, v in sm_loaded.signatures["fill_mask"](text=tf.constant(MASKED_TEXTS)).items()
    }
    packed = [
        pack_segments_reference(sm_tokenizer.encode(t), [], SEQ_LENGTH, 2, 3)["input_word_ids"]
        for t in MASKED_TEXTS
    ]
    positions = [
        [i for i, piece in enumerate(ids) if piece == sm_tokenizer.mask_id] for ids in packed
    ]
    assert got["num_masks"].tolist() == [1, 0, 0, 2, 0]
    assert got["top_k_ids"].shape == (len(MASKED_TEXTS), 2, TOP_K)
    sequence_output = sm_pretrainer.encoder(
        {
            "input_word_ids": tf.constant(packed),
            "input_mask": tf.cast(tf.constant(packed) > 0, tf.int32),
            "input_type_ids": tf.zeros((len(packed), SEQ_LENGTH), tf.int32),
        }
    )["sequence_output"]
    for row, row_positions in enumerate(positions):
        padding = 2 - len(row_positions)
        assert got["mask_positions"][row].tolist() == row_positions + [-1] * padding
        assert (got["top_k_pieces"][row, len(row_positions) :] == b"").all()
        assert (got["top_k_scores"][row, len(row_positions) :] == 0).all()
        if not row_positions:
            continue
        logits = sm_pretrainer.masked_lm_head(
            sequence_output[row : row + 1], tf.constant([row_positions])
        )
        probabilities = tf.nn.softmax(logits)[0].numpy()
        expected_ids = np.argsort(-probabilities, axis=-1)[:, :TOP_K]
        assert got["top_k_ids"][row, : len(row_positions)].tolist() == expected_ids.tolist()
        np.testing.assert_allclose(
            got["top_k_scores"][row, : len(row_positions)],
            np.take_along_axis(probabilities, expected_ids, axis=-1),
            atol=1e-5,
            rtol=0,
        )
        pieces = [[sm_tokenizer.id_to_piece(i).encode() for i in ids] for ids in expected_ids]
        assert got["top_k_pieces"][row, : len(row_positions)].tolist() == pieces


_FRESH_PROCESS_SCRIPT = textwrap.dedent(
    """
    import json, sys
    try:
        import albert_tf  # noqa: F401
        sys.exit("albert_tf is importable")
    except ImportError:
        pass
    import tensorflow as tf
    import tensorflow_text  # noqa: F401  (registers the SentencePiece ops)

    albert = tf.saved_model.load(sys.argv[1])
    encoded = albert.signatures["encode_text"](text_a=tf.constant(json.loads(sys.argv[2])))
    filled = albert.signatures["fill_mask"](text=tf.constant(json.loads(sys.argv[3])))
    result = {name: value.numpy().tolist() for name, value in encoded.items()}
    result["top_k_scores"] = filled["top_k_scores"].numpy().tolist()
    pieces = filled["top_k_pieces"].numpy()
    result["top_k_pieces"] = [[[p.decode() for p in k] for k in m] for m in pieces]
    result["asset_path"] = albert.sentencepiece_model_file.asset_path.numpy().decode()
    result["modules"] = sorted(m for m in sys.modules if m.startswith("albert_tf"))
    print("RESULT" + json.dumps(result))
    """
)


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
def test_moved_export_loads_in_a_process_without_albert_tf(sm_export_dir, sm_loaded, tmp_path):
    expected_encoded = sm_loaded.signatures["encode_text"](text_a=tf.constant(TEXTS))
    expected_filled = sm_loaded.signatures["fill_mask"](text=tf.constant(MASKED_TEXTS))
    moved = tmp_path / "moved" / "albert_copy"
    shutil.copytree(sm_export_dir, tmp_path / "original")
    moved.parent.mkdir()
    shutil.move(str(tmp_path / "original"), str(moved))
    got = run_without_albert_tf(
        _FRESH_PROCESS_SCRIPT, str(moved), json.dumps(TEXTS), json.dumps(MASKED_TEXTS), cwd=tmp_path
    )
    assert got["modules"] == []
    assert got["asset_path"].startswith(str(moved))
    for name, values in expected_encoded.items():
        np.testing.assert_allclose(np.array(got[name]), values.numpy(), atol=1e-6, rtol=0)
    np.testing.assert_allclose(
        np.array(got["top_k_scores"]), expected_filled["top_k_scores"].numpy(), atol=1e-6
    )
    assert np.array(got["top_k_pieces"], dtype=object).tolist() == [
        [[p.decode() for p in k] for k in m] for m in expected_filled["top_k_pieces"].numpy()
    ]


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
def test_saved_model_cli_show_lists_the_signatures(sm_export_dir, capsys):
    # `saved_model_cli show` as the executable runs it (its parser, then the command); the
    # executable itself runs in tests/export/test_tf1_loaders.py.
    from tensorflow.python.tools import saved_model_cli

    saved_model_cli.create_parser().parse_args(["show", "--all", "--dir", sm_export_dir]).func()
    shown = capsys.readouterr().out
    for name in ("serving_default", "encode_text", "encode_text_pair", "fill_mask"):
        assert f"signature_def['{name}']" in shown
    assert "inputs['text_b']" in shown and "outputs['top_k_pieces']" in shown


@pytest.mark.slow  # Over 5 s: builds on a pretrainer export.
def test_keras_bundle_inside_the_export(sm_export_dir, sm_pretrainer, sm_tokenizer):
    encoder, text_tokenizer = load_encoder(sm_export_dir)
    assert encoder.config == sm_pretrainer.encoder.config
    for mine, theirs in zip(encoder.weights, sm_pretrainer.encoder.weights, strict=True):
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))
    assert text_tokenizer(tf.constant(TEXTS)).to_list() == [sm_tokenizer.encode(t) for t in TEXTS]
    # Ready for fine-tuning: gradients reach the encoder's variables.
    ids = text_tokenizer(tf.constant(["fine tune me"])).to_tensor()
    with tf.GradientTape() as tape:
        pooled = encoder(
            {
                "input_word_ids": ids,
                "input_mask": tf.ones_like(ids),
                "input_type_ids": tf.zeros_like(ids),
            },
            training=True,
        )["pooled_output"]
        loss = tf.reduce_sum(pooled)
    gradients = tape.gradient(loss, encoder.trainable_variables)
    assert encoder.trainable_variables and all(g is not None for g in gradients)


def test_existing_dir_is_refused(tmp_path, sm_pretrainer, tiny_model_file):
    # Overwriting is tested with the script (tests/export/test_saved_model_script.py).
    export_dir = tmp_path / "albert"
    export_dir.mkdir()
    (export_dir / "old.txt").write_text("old")
    with pytest.raises(FileExistsError, match="--overwrite"):
        export_saved_model(
            str(export_dir), sm_pretrainer.encoder, tiny_model_file, runtime=Runtime.plain()
        )
    assert os.listdir(export_dir) == ["old.txt"]


def test_missing_or_mismatched_tokenizer(tmp_path, sm_pretrainer, tiny_model_file):
    export_dir = tmp_path / "albert"
    with pytest.raises(FileNotFoundError, match="missing.model"):
        export_saved_model(
            str(export_dir), sm_pretrainer, str(tmp_path / "missing.model"), runtime=Runtime.plain()
        )
    other = AlbertEncoder(_tiny_config(vocab_size=TINY_VOCAB_SIZE + 1))
    with pytest.raises(ValueError, match="300 pieces but the encoder's vocab_size is 301"):
        export_saved_model(
            str(export_dir), other, tiny_model_file, seq_length=16, runtime=Runtime.plain()
        )
    assert os.listdir(tmp_path) == []


def _save_training_checkpoint(model: AlbertPretrainer, workdir: pathlib.Path) -> str:
    """A checkpoint laid out like albert_tf.training.pretrain's (model, optimizer, step)."""
    optimizer = keras.optimizers.Adam()
    optimizer.build(model.trainable_variables)
    step = tf.Variable(7, dtype=tf.int64)
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step)
    return tf.train.CheckpointManager(checkpoint, str(workdir), 2, checkpoint_name="ckpt").save(7)


def test_load_albert_model_from_a_training_checkpoint(tmp_path, sm_pretrainer):
    config = sm_pretrainer.encoder.config
    prefix = _save_training_checkpoint(sm_pretrainer, tmp_path / "workdir")
    for path in (str(tmp_path / "workdir"), prefix):
        restored = load_albert_model(path, config)
        assert isinstance(restored, AlbertPretrainer)
        for mine, theirs in zip(restored.weights, sm_pretrainer.weights, strict=True):
            np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))
    with pytest.raises(ValueError, match="does not match the AlbertConfig"):
        load_albert_model(prefix, config.replace(hidden_size=64))
    with pytest.raises(ValueError, match="needs the albert_config.json"):
        load_albert_model(prefix)
    with pytest.raises(FileNotFoundError, match="no checkpoint found"):
        load_albert_model(str(tmp_path / "nothing_here"), config)


def test_checkpoint_with_more_layers_than_the_config_is_rejected(tmp_path):
    bigger = AlbertPretrainer(
        AlbertEncoder(_tiny_config(sharing="not_shared", num_hidden_layers=3))
    )
    prefix = _save_training_checkpoint(bigger, tmp_path / "workdir")
    with pytest.raises(ValueError, match="have no place in a model with this AlbertConfig"):
        load_albert_model(prefix, _tiny_config(sharing="not_shared", num_hidden_layers=2))


def test_keras_file_config_mismatch(tmp_path, sm_pretrainer):
    path = str(tmp_path / "encoder.keras")
    sm_pretrainer.encoder.save(path)
    assert isinstance(load_albert_model(path), AlbertEncoder)
    with pytest.raises(ValueError, match="num_hidden_layers: 2 vs 3"):
        load_albert_model(path, _tiny_config(sharing="shared_attention", num_hidden_layers=3))
