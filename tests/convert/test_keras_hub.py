"""keras-hub presets both ways, outputs equal within 1e-5 in float32, and the refusals.

albert_tf -> keras-hub: a classifier run directory converts to a preset that keras-hub loads in
a process where albert_tf cannot be imported; its own preprocessor gives albert_tf's ids and
the model albert_tf's outputs. keras-hub -> albert_tf: presets written by keras-hub's own
`save_to_preset` from random models read into albert_tf models with the same outputs.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import types

import keras
import numpy as np
import pytest
import tensorflow as tf

from albert_tf.config import AlbertConfig
from albert_tf.convert.convert import convert_checkpoint, load_model, save_model
from albert_tf.convert.keras_hub_config import albert_config_from_keras_hub, backbone_kwargs
from albert_tf.convert.keras_hub_weights import keras_hub_path
from albert_tf.errors import MissingInputError, UserError
from albert_tf.models import AlbertClassifier, AlbertEncoder, AlbertSpanQA
from albert_tf.tokenization.text_features import AlbertTextFeatures
from tests import commands
from tests.commands import command_line
from tests.conftest import REPO_ROOT, TINY_ALBERT
from tests.fresh_process import run_without_albert_tf

CONFIG = AlbertConfig(**TINY_ALBERT, num_hidden_groups=2, inner_group_num=2)
SEQ_LENGTH = 24
TEXTS = ["The Quick brown FOX, Café!", "A naïve [MASK] of Ångström.", "short"]
PAIRS = (
    ["Is it raining?", "What a film"],
    ["It was a long day in the city of rain, with more words than the length holds.", "Great."],
)
TOLERANCE = 1e-5


def randomize(model: keras.Model, seed: int = 0) -> None:
    """Every weight random (biases and LayerNorm betas too), so a misplaced one shows."""
    rng = np.random.default_rng(seed)
    for variable in model.weights:
        value = rng.normal(0.0, 0.2, variable.shape) + ("gamma" in variable.path)
        variable.assign(value.astype("float32"))


def max_diff(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a, "float32") - np.asarray(b, "float32"))))


def one_line_refusal(call, output: str, match: str) -> None:
    """`call()` raises a one-line `UserError` matching `match` and writes nothing at `output`."""
    with pytest.raises(UserError, match=match) as error:
        call()
    assert "\n" not in str(error.value)
    assert not os.path.lexists(output)
    assert os.listdir(os.path.dirname(output)) == []  # No temp directory or lock either.


# -- configs and names (no keras-hub needed) --------------------------------------------------


def test_config_round_trip_and_the_projection_layouts():
    assert albert_config_from_keras_hub(backbone_kwargs(CONFIG)) == CONFIG
    assert backbone_kwargs(CONFIG)["num_inner_repetitions"] == 2
    same_size = CONFIG.replace(embedding_size=CONFIG.hidden_size)
    # keras-hub always projects E -> H: with E == H it reads as Hugging Face's layout.
    read = albert_config_from_keras_hub(backbone_kwargs(same_size))
    assert read == same_size.replace(embedding_projection="always")
    assert backbone_kwargs(read) == backbone_kwargs(same_size)


@pytest.mark.parametrize(
    "change, match",
    [
        (
            dict(sharing="shared_attention"),
            "sharing='shared_attention' has no counterpart in keras-hub",
        ),
        (dict(sharing="shared_ffn"), "sharing='shared_ffn' has no counterpart in keras-hub"),
        (dict(sharing="not_shared"), "sharing='not_shared' has no counterpart in keras-hub"),
        (dict(hidden_act="gelu_exact"), "hidden_act='gelu_exact' has no keras-hub"),
        (dict(hidden_act="relu"), "hidden_act='relu' has no keras-hub"),
        (dict(num_hidden_layers=22, num_hidden_groups=22), r"maps layers \[15\] to other groups"),
    ],
)
def test_configs_keras_hub_cannot_hold_are_refused(change, match):
    with pytest.raises(UserError, match=match) as error:
        backbone_kwargs(CONFIG.replace(**change))
    assert "\n" not in str(error.value)


def test_one_dropout_rate_is_written_with_a_warning(caplog):
    kwargs = backbone_kwargs(CONFIG.replace(hidden_dropout_prob=0.1))
    assert kwargs["dropout"] == 0.1
    assert "one dropout rate" in caplog.text


def test_keras_hub_paths():
    block = "albert.encoder.albert_layer_groups.1.albert_layers.0."
    assert keras_hub_path(block + "attention.dense.weight") == (
        "group_1_inner_layer_0/self_attention_layer/attention_output/kernel"
    )
    assert keras_hub_path(block + "full_layer_layer_norm.bias") == (
        "group_1_inner_layer_0/feedforward_layer_norm/beta"
    )
    assert keras_hub_path("embeddings.position_embeddings.weight") == (
        "position_embedding/embeddings"
    )
    assert keras_hub_path("classifier.weight") == "logits/kernel"
    assert keras_hub_path("predictions.dense.weight") is None  # No pretraining heads.


@pytest.mark.parametrize(
    "case, match",
    [
        ("span_qa", "keras-hub has no task for AlbertSpanQA"),
        ("no_tokenizer", "needs the SentencePiece model"),
        ("too_long", "seq_length=65"),
        ("sharing", "sharing='not_shared'"),
    ],
)
def test_writes_keras_hub_cannot_hold_are_refused(case, match, tiny_model_file, tmp_path):
    config = CONFIG.replace(sharing="not_shared") if case == "sharing" else CONFIG
    encoder = AlbertEncoder(config)
    model = AlbertSpanQA(encoder) if case == "span_qa" else AlbertClassifier(encoder, 2)
    spm_file = None if case == "no_tokenizer" else tiny_model_file
    length = 65 if case == "too_long" else None
    output = str(tmp_path / "preset")
    one_line_refusal(
        lambda: save_model(model, "keras_hub", output, spm_file, seq_length=length), output, match
    )


# -- albert_tf -> keras-hub ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def albert_presets(tiny_model_file, tmp_path_factory) -> types.SimpleNamespace:
    """A finished-run-like directory (model.keras, spm.model, task.json) and its two presets."""
    root = tmp_path_factory.mktemp("albert_presets")
    classifier = AlbertClassifier(AlbertEncoder(CONFIG), num_outputs=3)
    randomize(classifier)
    run_dir = str(root / "run")
    save_model(classifier, "albert_tf", run_dir)
    shutil.copyfile(tiny_model_file, os.path.join(run_dir, "spm.model"))
    with open(os.path.join(run_dir, "task.json"), "w", encoding="utf-8") as f:
        json.dump({"max_seq_length": SEQ_LENGTH, "do_lower_case": True}, f)
    # The tokenizer and the length come from the run directory.
    classifier_preset = convert_checkpoint("albert_tf", run_dir, "keras_hub", str(root / "clf"))
    encoder_preset = convert_checkpoint(
        "albert_tf", run_dir, "keras_hub", str(root / "enc"), heads=False
    )
    features = AlbertTextFeatures(tiny_model_file, SEQ_LENGTH)
    return types.SimpleNamespace(
        classifier=classifier,
        classifier_preset=classifier_preset,
        encoder_preset=encoder_preset,
        inputs=features(tf.constant(TEXTS)),
        pair_inputs=features([tf.constant(PAIRS[0]), tf.constant(PAIRS[1])]),
    )


# Run where albert_tf cannot be imported (`run_without_albert_tf`): keras-hub alone loads the
# presets.
KERAS_HUB_ONLY = r"""
import json, sys

import keras_hub
import numpy as np
import tensorflow as tf

request = json.loads(sys.argv[1])
classifier = keras_hub.models.AlbertTextClassifier.from_preset(request["classifier"])
backbone = keras_hub.models.AlbertBackbone.from_preset(request["encoder"])
inputs = classifier.preprocessor(tf.constant(request["texts"]))
pair_inputs = classifier.preprocessor(x=tuple(tf.constant(column) for column in request["pairs"]))
outputs = backbone(inputs)
result = {
    "inputs": {name: np.asarray(value).astype(int).tolist() for name, value in inputs.items()},
    "pair_inputs": {name: np.asarray(v).astype(int).tolist() for name, v in pair_inputs.items()},
    "logits": classifier.predict(request["texts"], verbose=0).tolist(),  # raw text in
    "pair_logits": np.asarray(classifier(pair_inputs)).tolist(),
    "outputs": {name: np.asarray(value).tolist() for name, value in outputs.items()},
    "albert_tf_modules": sorted(m for m in sys.modules if m.partition(".")[0] == "albert_tf"),
}
print("RESULT" + json.dumps(result))
"""


@pytest.mark.slow  # a keras-hub process and the module's presets
def test_keras_hub_loads_the_presets_without_albert_tf(albert_presets, tmp_path):
    preset_files = sorted(os.listdir(albert_presets.classifier_preset))
    assert preset_files == [
        "assets", "config.json", "metadata.json", "model.weights.h5", "preprocessor.json",
        "task.json", "task.weights.h5", "tokenizer.json",
    ]  # fmt: skip
    assert os.path.isfile(os.path.join(albert_presets.encoder_preset, "tokenizer.json"))
    request = {
        "classifier": albert_presets.classifier_preset,
        "encoder": albert_presets.encoder_preset,
        "texts": TEXTS,
        "pairs": PAIRS,
    }
    result = run_without_albert_tf(KERAS_HUB_ONLY, json.dumps(request), cwd=tmp_path)
    assert result["albert_tf_modules"] == []
    names = {"token_ids": "input_word_ids", "segment_ids": "input_type_ids"}
    names["padding_mask"] = "input_mask"
    for theirs, ours in ((result["inputs"], albert_presets.inputs), (
        result["pair_inputs"], albert_presets.pair_inputs
    )):  # fmt: skip
        for name, albert_name in names.items():
            np.testing.assert_array_equal(theirs[name], ours[albert_name], err_msg=name)
    classifier = albert_presets.classifier
    diffs = {
        "logits": max_diff(result["logits"], classifier(albert_presets.inputs)),
        "pair_logits": max_diff(result["pair_logits"], classifier(albert_presets.pair_inputs)),
    }
    outputs = classifier.encoder(albert_presets.inputs)
    for name in ("sequence_output", "pooled_output"):
        diffs[name] = max_diff(result["outputs"][name], outputs[name])
    print("keras-hub without albert_tf vs albert_tf, max abs differences:", diffs)
    assert max(diffs.values()) < TOLERANCE, diffs


@pytest.mark.slow  # keras-hub's import and the module's presets
def test_albert_tf_to_keras_hub_and_back_is_lossless(albert_presets):
    read = load_model("keras_hub", albert_presets.classifier_preset)
    assert isinstance(read, AlbertClassifier) and read.encoder.config == CONFIG
    original = albert_presets.classifier
    assert [v.path for v in read.weights] == [v.path for v in original.weights]
    for ours, theirs in zip(original.weights, read.weights, strict=True):
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs), err_msg=ours.path)


@pytest.mark.slow  # keras-hub's import and two presets
@pytest.mark.parametrize("projection", ["auto", "always"])
def test_same_size_embeddings_round_trip(projection, tiny_model_file, tmp_path):
    """E == H: no projection (the identity in keras-hub) or a real one; read back as one."""
    import keras_hub

    config = CONFIG.replace(embedding_size=CONFIG.hidden_size, embedding_projection=projection)
    encoder = AlbertEncoder(config)
    randomize(encoder, seed=1)
    preset = save_model(encoder, "keras_hub", str(tmp_path / "preset"), tiny_model_file)
    inputs = AlbertTextFeatures(tiny_model_file, SEQ_LENGTH)(tf.constant(TEXTS))
    backbone = keras_hub.models.AlbertBackbone.from_preset(preset)
    theirs = backbone(
        {
            "token_ids": inputs["input_word_ids"],
            "segment_ids": inputs["input_type_ids"],
            "padding_mask": inputs["input_mask"],
        }
    )
    read = load_model("keras_hub", preset)
    assert read.config.embedding_projection == "always"
    ours, again = encoder(inputs), read(inputs)
    for name in ("sequence_output", "pooled_output"):
        assert max_diff(theirs[name], ours[name]) < TOLERANCE, name
        assert max_diff(again[name], ours[name]) < TOLERANCE, name


# -- keras-hub -> albert_tf ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def keras_hub_presets(tiny_model_file, tmp_path_factory) -> types.SimpleNamespace:
    """Presets keras-hub's `save_to_preset` writes from random tiny models."""
    import keras_hub

    root = tmp_path_factory.mktemp("keras_hub_presets")
    with open(tiny_model_file, "rb") as f:
        tokenizer = keras_hub.models.AlbertTokenizer(proto=f.read())
    shape = dict(vocabulary_size=300, num_heads=2, intermediate_dim=64, max_sequence_length=64)
    backbone = keras_hub.models.AlbertBackbone(
        **shape, num_layers=4, num_groups=2, num_inner_repetitions=2, embedding_dim=16,
        hidden_dim=32, dropout=0.1,
    )  # fmt: skip
    preprocessor = keras_hub.models.AlbertTextClassifierPreprocessor(tokenizer, sequence_length=20)
    classifier = keras_hub.models.AlbertTextClassifier(backbone, 3, preprocessor=preprocessor)
    randomize(classifier, seed=2)
    classifier.save_to_preset(str(root / "classifier"))
    same_size = keras_hub.models.AlbertBackbone(
        **shape, num_layers=2, embedding_dim=32, hidden_dim=32
    )
    randomize(same_size, seed=3)
    same_size.save_to_preset(str(root / "backbone"))
    tokenizer.save_to_preset(str(root / "backbone"))
    bert = keras_hub.models.BertBackbone(
        vocabulary_size=300, num_layers=1, num_heads=2, hidden_dim=8, intermediate_dim=16
    )
    bert.save_to_preset(str(root / "bert"))
    return types.SimpleNamespace(
        root=root,
        classifier=classifier,
        backbone=same_size,
        inputs=preprocessor(tf.constant(TEXTS)),
    )


def albert_inputs(keras_hub_inputs: dict) -> dict:
    return {
        "input_word_ids": keras_hub_inputs["token_ids"],
        "input_type_ids": keras_hub_inputs["segment_ids"],
        "input_mask": tf.cast(keras_hub_inputs["padding_mask"], "int32"),
    }


@pytest.mark.slow  # keras-hub's import and the module's presets
def test_albert_tf_reads_a_keras_hub_classifier_preset(keras_hub_presets, tmp_path):
    preset = str(keras_hub_presets.root / "classifier")
    output = convert_checkpoint("keras_hub", preset, "albert_tf", str(tmp_path / "out"))
    assert sorted(os.listdir(output)) == [
        "albert_config.json",
        "encoder.keras",
        "model.keras",
        "spm.model",
        "task.json",
        "tokenizer_config.json",
    ]  # fmt: skip: an encoder bundle (what fine-tuning reads), the classifier and its task
    with open(os.path.join(output, "tokenizer_config.json"), encoding="utf-8") as f:
        assert json.load(f) == {"do_lower_case": True, "seq_length": 20}
    with open(os.path.join(preset, "assets", "tokenizer", "vocabulary.spm"), "rb") as f:
        assert (tmp_path / "out" / "spm.model").read_bytes() == f.read()
    model = load_model("albert_tf", output)
    assert isinstance(model, AlbertClassifier)
    assert model.num_outputs == 3 and model.encoder.config.hidden_dropout_prob == 0.1
    inputs = keras_hub_presets.inputs
    diffs = {"logits": max_diff(keras_hub_presets.classifier(inputs), model(albert_inputs(inputs)))}
    theirs = keras_hub_presets.classifier.backbone(inputs)
    ours = load_model("keras_hub", preset, heads=False)(albert_inputs(inputs))
    for name in ("sequence_output", "pooled_output"):
        diffs[name] = max_diff(theirs[name], ours[name])
    print("albert_tf reading keras-hub's classifier preset, max abs differences:", diffs)
    assert max(diffs.values()) < TOLERANCE, diffs


@pytest.mark.slow  # keras-hub's import and the module's presets
def test_albert_tf_reads_a_keras_hub_backbone_preset(keras_hub_presets):
    encoder = load_model("keras_hub", str(keras_hub_presets.root / "backbone"))
    assert isinstance(encoder, AlbertEncoder)
    assert encoder.config.embedding_projection == "always"  # keras-hub's E == H projection
    inputs = keras_hub_presets.inputs
    theirs, ours = keras_hub_presets.backbone(inputs), encoder(albert_inputs(inputs))
    diffs = {name: max_diff(theirs[name], ours[name]) for name in theirs}
    print("albert_tf reading keras-hub's backbone preset, max abs differences:", diffs)
    assert max(diffs.values()) < TOLERANCE, diffs


@pytest.mark.slow  # keras-hub's import and the module's presets
def test_presets_albert_tf_cannot_read_are_refused(keras_hub_presets, tmp_path):
    output = str(tmp_path / "out")
    hf_dir = tmp_path.parent / f"{tmp_path.name}_hf"
    hf_dir.mkdir()
    (hf_dir / "config.json").write_text('{"model_type": "albert"}')
    cases = [
        (keras_hub_presets.root / "bert", None, "a keras-hub BertBackbone preset, not ALBERT"),
        (hf_dir, None, "not a keras-hub preset.*--from=hf"),
        (keras_hub_presets.root / "backbone", True, "a backbone preset without a task"),
    ]
    for preset, heads, match in cases:
        one_line_refusal(
            functools.partial(
                convert_checkpoint, "keras_hub", str(preset), "albert_tf", output, heads=heads
            ),
            output,
            match,
        )
    with pytest.raises(MissingInputError, match="no keras-hub config.json"):
        convert_checkpoint("keras_hub", str(tmp_path / "missing"), "albert_tf", output)


@pytest.mark.slow  # a conversion process (~8 s)
def test_script_refuses_another_architecture_in_one_line(keras_hub_presets, tmp_path):
    command = command_line(
        "convert", "--from=keras_hub", "--to=albert_tf",
        f"--input={keras_hub_presets.root / 'bert'}", f"--output={tmp_path / 'out'}",
    )  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "TF_CPP_MIN_LOG_LEVEL": "3"}
    result = commands.run(command, env=env)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.strip().splitlines()[-1].startswith("error: ")
    assert "BertBackbone preset, not ALBERT" in result.stderr
    assert list(tmp_path.iterdir()) == []
