"""export_tfhub: the TF Hub / Kaggle preprocessor + encoder pair, under tf-keras and Keras 3."""

from __future__ import annotations

import os
import pathlib

import keras
import numpy as np
import pytest
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the SentencePiece ops of the SavedModels)
from tensorflow.core.protobuf import saved_model_pb2

from albert_tf.config import AlbertConfig
from albert_tf.export.export_source import ExportSource
from albert_tf.export.tfhub import encoder as hub_encoder
from albert_tf.export.tfhub.export import export_tfhub
from albert_tf.export.warmup import WARMUP_FILE
from albert_tf.models import AlbertEncoder, AlbertPretrainer
from albert_tf.models.chains import PLAIN, chain_layers, use_chains
from albert_tf.runtime.fused_kernels import FUSED_CHAINS
from albert_tf.tokenization import AlbertTokenizer
from albert_tf.tokenization.text_packing import pack_segments_reference
from tests.conftest import TINY_ALBERT, TINY_VOCAB_SIZE
from tests.hostile_text import HOSTILE_BATCHES, LONG, hostile_batch
from tests.warmup_replay import assert_replayed

# Every test here needs the module's export (`hub_dir`): ~15 s on 2 cores. The errors of
# export_tfhub, which need no export, are in test_encoder.py; its sources in
# tests/export/test_export_source.py.
pytestmark = pytest.mark.slow
SEQ_LENGTH = 24
TOLERANCE = 1e-5
# Two layers of two inner blocks: four applied blocks, hence four `encoder_outputs`.
CONFIG = AlbertConfig(
    **{**TINY_ALBERT, "inner_group_num": 2, "hidden_dropout_prob": 0.1, "initializer_range": 0.2}
)
TEXTS = [
    "Hello world.",
    "",
    "   ",
    "Café NAÏVE crème [MASK] brûlée",
    LONG[:3000],
    "日本語 テキスト",
]


@pytest.fixture(scope="module")
def hub_pretrainer() -> AlbertPretrainer:
    keras.utils.set_random_seed(0)
    model = AlbertPretrainer(AlbertEncoder(CONFIG))
    bias = model.masked_lm_head.output_bias
    bias.assign(np.random.default_rng(0).normal(size=bias.shape).astype("float32"))
    return model


@pytest.fixture(scope="module")
def hub_export(
    tmp_path_factory, hub_pretrainer, tiny_model_file
) -> tuple[pathlib.Path, set, list, list]:
    """(export dir, the model's chains after the export, the encoder SavedModel's root, the
    `training` of each trace of a Keras encoder) of a model holding the fused kernels' chains,
    as training on a CPU leaves it; the model then gets the plain ones back."""
    export_dir = tmp_path_factory.mktemp("tfhub") / "albert"
    roots, encoder_traces = [], []

    class RecordedRoot(hub_encoder.TfHubEncoder):
        def __init__(self, *args):
            super().__init__(*args)
            roots.append(self)

    def traced_call(encoder, inputs, training=None, **kwargs):
        if not tf.executing_eagerly():
            encoder_traces.append(training)
        return encoder_call(encoder, inputs, training=training, **kwargs)

    encoder_call = AlbertEncoder.call

    use_chains(hub_pretrainer, FUSED_CHAINS)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(hub_encoder, "TfHubEncoder", RecordedRoot)
            patch.setattr(AlbertEncoder, "call", traced_call)
            export_tfhub(str(export_dir), ExportSource(hub_pretrainer, tiny_model_file), SEQ_LENGTH)
        kept = {layer.chains for layer in chain_layers(hub_pretrainer)}
    finally:
        use_chains(hub_pretrainer, PLAIN)
    return export_dir, kept, roots, encoder_traces


@pytest.fixture(scope="module")
def hub_dir(hub_export) -> pathlib.Path:
    return hub_export[0]


@pytest.fixture(scope="module")
def preprocessor(hub_dir):
    return tf.saved_model.load(str(hub_dir / "preprocessor"))


@pytest.fixture(scope="module")
def encoder(hub_dir):
    return tf.saved_model.load(str(hub_dir / "encoder"))


def _random_inputs(rng: np.random.Generator, batch: int = 3, length: int = 20) -> dict:
    lengths = np.array([[length], [7], [1]])[:batch]
    return {
        "input_word_ids": tf.constant(rng.integers(0, TINY_VOCAB_SIZE, (batch, length)), tf.int32),
        "input_mask": tf.constant(np.arange(length)[None, :] < lengths, tf.int32),
        "input_type_ids": tf.constant(rng.integers(0, 2, (batch, length)), tf.int32),
    }


def test_layout_api_and_special_tokens(
    hub_dir, preprocessor, encoder, hub_pretrainer, tiny_model_file
):
    assert sorted(os.listdir(hub_dir)) == ["encoder", "preprocessor"]
    for part in ("encoder", "preprocessor"):
        assert (hub_dir / part / WARMUP_FILE).is_file()
        assets = list((hub_dir / part / "assets").iterdir())
        assert [a.read_bytes() for a in assets] == [pathlib.Path(tiny_model_file).read_bytes()]
    special = {k: int(v) for k, v in preprocessor.tokenize.get_special_tokens_dict().items()}
    assert special == {
        "vocab_size": TINY_VOCAB_SIZE,
        "start_of_sequence_id": 2,
        "end_of_segment_id": 3,
        "padding_id": 0,
        "mask_id": 4,
    }
    assert set(encoder.signatures) == {"serving_default", "mlm"}
    assert set(preprocessor.signatures) == {"serving_default"}
    assert list(encoder.regularization_losses) == []
    assert len(encoder.trainable_variables) == len(hub_pretrainer.encoder.weights)
    trainable = {id(v) for v in encoder.trainable_variables}
    others = [v.name for v in encoder.variables if id(v) not in trainable]
    assert others and all("seed_generator_state" in name for name in others)  # Dropout's.
    head = {id(v) for v in encoder.mlm.trainable_variables} - trainable
    assert len(head) == 5  # The MLM head's dense kernel and bias, LayerNorm, output bias.


def test_weights_are_variables_the_encoder_reads(hub_dir, hub_pretrainer):
    loaded = tf.saved_model.load(str(hub_dir / "encoder"))  # A copy the test may change.
    keras_values = sorted(float(np.sum(np.abs(w))) for w in hub_pretrainer.encoder.get_weights())
    saved_values = sorted(float(np.sum(np.abs(v.numpy()))) for v in loaded.trainable_variables)
    np.testing.assert_allclose(saved_values, keras_values, rtol=1e-6)
    (pooler_kernel,) = [v for v in loaded.variables if "pooler" in v.name and "kernel" in v.name]
    pooler_kernel.assign(tf.zeros_like(pooler_kernel))
    pooled = loaded(_random_inputs(np.random.default_rng(0)))["pooled_output"]
    (pooler_bias,) = [v for v in loaded.variables if "pooler" in v.name and "bias" in v.name]
    np.testing.assert_allclose(pooled[0], np.tanh(pooler_bias.numpy()), atol=1e-6)


def test_encoder_outputs_equal_albert_tf(encoder, hub_pretrainer):
    inputs = _random_inputs(np.random.default_rng(1))
    got = encoder(inputs)
    expected = hub_pretrainer.encoder(inputs)
    for name in ("pooled_output", "sequence_output"):
        np.testing.assert_allclose(got[name], expected[name], atol=TOLERANCE, rtol=0)
    np.testing.assert_array_equal(got["default"], got["pooled_output"])
    assert len(got["encoder_outputs"]) == CONFIG.num_hidden_layers * CONFIG.inner_group_num
    np.testing.assert_array_equal(got["encoder_outputs"][-1], got["sequence_output"])
    # training=True applies dropout; training=False (the default) does not.
    dropped = encoder(inputs, training=True)["sequence_output"]
    assert np.abs(dropped - got["sequence_output"]).max() > 1e-2
    np.testing.assert_array_equal(encoder(inputs, training=False)["pooled_output"], got["default"])


def test_mlm_logits_equal_the_pretrainer_head(encoder, hub_pretrainer):
    inputs = _random_inputs(np.random.default_rng(2))
    positions = tf.constant([[1, 5, 0], [2, 3, 6], [0, 0, 0]], tf.int32)
    got = encoder.mlm({**inputs, "masked_lm_positions": positions})
    sequence_output = hub_pretrainer.encoder(inputs)["sequence_output"]
    expected = hub_pretrainer.masked_lm_head(sequence_output, positions)
    assert got["mlm_logits"].shape == (3, 3, TINY_VOCAB_SIZE)
    np.testing.assert_allclose(got["mlm_logits"], expected, atol=TOLERANCE, rtol=0)
    served = encoder.signatures["mlm"](**inputs, masked_lm_positions=positions)
    np.testing.assert_allclose(served["mlm_logits"], expected, atol=TOLERANCE, rtol=0)


def test_tokenize_gives_albert_tokenizer_ids(preprocessor, tiny_model_file):
    tokenizer = AlbertTokenizer(tiny_model_file)
    tokens = preprocessor.tokenize(tf.constant(TEXTS))
    assert isinstance(tokens, tf.RaggedTensor) and tokens.ragged_rank == 1
    assert tokens.dtype == tf.int32
    assert tokens.to_list() == [tokenizer.encode(text) for text in TEXTS]
    # The hostile batches Python strings can hold (invalid UTF-8 is only served: see below).
    texts = [
        *HOSTILE_BATCHES["NUL characters"],
        *HOSTILE_BATCHES["empty strings"],
        *HOSTILE_BATCHES["250,000 characters"],
    ]
    assert preprocessor.tokenize(tf.constant(texts)).to_list() == tokenizer.encode_batch(texts)


@pytest.mark.parametrize("name", list(HOSTILE_BATCHES))
def test_preprocessor_takes_hostile_batches(preprocessor, name):
    batch = hostile_batch(name)
    size = int(batch.shape[0])
    for inputs in (
        preprocessor(batch),
        preprocessor.bert_pack_inputs([preprocessor.tokenize(batch)] * 2),
    ):
        assert sorted(inputs) == ["input_mask", "input_type_ids", "input_word_ids"]
        for value in inputs.values():
            assert value.shape == (size, SEQ_LENGTH) and value.dtype == tf.int32


def test_preprocessor_packs_single_sentences_like_albert_tf(preprocessor, tiny_model_file):
    tokenizer = AlbertTokenizer(tiny_model_file)
    got = preprocessor(tf.constant(TEXTS))
    for row, text in enumerate(TEXTS):
        expected = pack_segments_reference(tokenizer.encode(text), [], SEQ_LENGTH, 2, 3)
        for name, values in expected.items():
            assert got[name][row].numpy().tolist() == values, (name, text)


def test_bert_pack_inputs_truncates_round_robin(preprocessor, tiny_model_file):
    tokenizer = AlbertTokenizer(tiny_model_file)
    text_a = ["A short one.", LONG[:400], LONG[:50], "only a", "x"]
    text_b = [LONG[:400], "and b", LONG[:60], "", "y"]
    segments = [preprocessor.tokenize(tf.constant(texts)) for texts in (text_a, text_b)]
    for seq_length in (SEQ_LENGTH, 11, tf.constant(40)):
        got = preprocessor.bert_pack_inputs(segments, seq_length=seq_length)
        length = int(seq_length)
        for row, (a, b) in enumerate(zip(text_a, text_b, strict=True)):
            ids_a, ids_b = tokenizer.encode(a), tokenizer.encode(b)
            if ids_b:  # Two segments: the original's longest-first lengths.
                expected = pack_segments_reference(ids_a, ids_b, length, 2, 3)
            else:  # The API ends every segment with [SEP], an empty one too.
                packed = pack_segments_reference(ids_a, [], length - 1, 2, 3)
                used = sum(packed["input_mask"])
                expected = {
                    "input_word_ids": packed["input_word_ids"][:used] + [3],
                    "input_mask": [1] * (used + 1),
                    "input_type_ids": [0] * used + [1],
                }
                expected = {k: v + [0] * (length - len(v)) for k, v in expected.items()}
            for name, values in expected.items():
                assert got[name][row].numpy().tolist() == values, (name, row, length)
    default = preprocessor.bert_pack_inputs(segments)
    assert default["input_word_ids"].shape == (len(text_a), SEQ_LENGTH)


def test_bert_pack_inputs_checks_seq_length(preprocessor):
    tokens = preprocessor.tokenize(tf.constant(["a b"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="max_position_embeddings=64"):
        preprocessor.bert_pack_inputs([tokens], seq_length=65)
    with pytest.raises(tf.errors.InvalidArgumentError, match="seq_length must be >= 3"):
        preprocessor.bert_pack_inputs([tokens, tokens], seq_length=2)


def test_keras3_loads_both_with_tfsm_layer(hub_dir, hub_pretrainer):
    preprocess = keras.layers.TFSMLayer(str(hub_dir / "preprocessor"), call_endpoint="__call__")
    encode = keras.layers.TFSMLayer(str(hub_dir / "encoder"), call_endpoint="__call__")
    inputs = preprocess(tf.constant(TEXTS))
    got = encode(inputs)
    expected = hub_pretrainer.encoder(inputs)
    for name in ("pooled_output", "sequence_output"):
        np.testing.assert_allclose(got[name], expected[name], atol=TOLERANCE, rtol=0)


@pytest.mark.parametrize("part", ["encoder", "preprocessor"])
def test_warmup_requests_replay(hub_dir, part):
    results = assert_replayed(str(hub_dir / part))
    if part == "encoder":
        assert results["mlm"]["mlm_logits"].shape == (1, 2, TINY_VOCAB_SIZE)


# tf-keras builds and trains a model on both SavedModels (~15 s on 2 cores).
def test_hub_keras_layers_fine_tune_the_encoder(hub_dir, hub_pretrainer):
    import tensorflow_hub as hub
    import tf_keras

    tf_keras.utils.set_random_seed(0)
    text = tf_keras.Input(shape=(), dtype=tf.string)
    preprocess = hub.KerasLayer(str(hub_dir / "preprocessor"))
    encode = hub.KerasLayer(str(hub_dir / "encoder"), trainable=True)
    outputs = encode(preprocess(text))
    model = tf_keras.Model(text, tf_keras.layers.Dense(2)(outputs["pooled_output"]))
    model.compile(
        tf_keras.optimizers.Adam(3e-3),
        tf_keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    sentences = np.array(["a good film", "a bad film", "great acting", "terrible plot"] * 2)
    labels = np.array([1, 0, 1, 0] * 2)
    pooled = tf_keras.Model(text, outputs["pooled_output"])(tf.constant(sentences))
    expected = hub_pretrainer.encoder(preprocess(tf.constant(sentences)))["pooled_output"]
    np.testing.assert_allclose(pooled, expected, atol=TOLERANCE, rtol=0)
    assert len(encode.trainable_weights) == len(hub_pretrainer.encoder.weights)
    before = [w.numpy() for w in encode.trainable_weights]
    loss_before = model.evaluate(sentences, labels, verbose=0)
    model.fit(sentences, labels, epochs=10, batch_size=8, verbose=0)
    assert model.evaluate(sentences, labels, verbose=0) < loss_before - 0.02
    after = [w.numpy() for w in encode.trainable_weights]
    unchanged = [
        w.name
        for w, a, b in zip(encode.trainable_weights, before, after, strict=True)
        if np.array_equal(a, b)
    ]
    assert not unchanged


def _compiled_functions(saved_model_dir: str) -> list[str]:
    """The functions of the SavedModel that XLA must compile (the fused kernels' mark)."""
    saved_model = saved_model_pb2.SavedModel()
    saved_model.ParseFromString((pathlib.Path(saved_model_dir) / "saved_model.pb").read_bytes())
    library = saved_model.meta_graphs[0].graph_def.library
    return [f.signature.name for f in library.function if f.attr["_XlaMustCompile"].b]


def test_the_save_keeps_the_traces_made_for_it(hub_export):
    """`__call__(inputs, training)` traced once per `training`, not again by the save; `mlm`
    calls those traces instead of tracing the encoder again."""
    (root,) = hub_export[2]
    assert root.__call__.experimental_get_tracing_count() == 2
    assert root.mlm.__call__.experimental_get_tracing_count() == 2
    assert sorted(hub_export[3]) == [False, True]


def test_encoder_is_traced_on_the_plain_chains(hub_export):
    """A model trained with the fused kernels exports the plain graph, and keeps its chains."""
    hub_dir, kept, *_ = hub_export
    assert kept == {FUSED_CHAINS}
    assert _compiled_functions(str(hub_dir / "encoder")) == []
