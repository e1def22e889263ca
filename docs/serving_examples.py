"""Prints the REST examples of docs/serving.md from real exports of a tiny random ALBERT.

Every SavedModel albert_tf writes (the pretraining export, each fine-tuning family's, the TF Hub
pair) is exported from a tiny randomly initialized model, each signature is called on the
request's `instances`, and the outputs are printed as TF Serving's REST API returns them for
the row format (`{"predictions": [...]}`: one object per instance, keyed by output name). The
numbers mean nothing (random weights); keys, shapes and types are the real ones. Vectors are cut
after three values (`...`) and floats rounded to 4 digits.

    PYTHONPATH=. python docs/serving_examples.py > serving_examples.md
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable

import keras
import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the SentencePiece ops of the SavedModels)

from albert_tf.config import AlbertConfig
from albert_tf.export.endpoints import Endpoints
from albert_tf.export.export_source import ExportSource
from albert_tf.export.saved_model import export_saved_model
from albert_tf.export.task_export import Predict, export_task_model
from albert_tf.export.tfhub.export import export_tfhub
from albert_tf.finetune.classification.serving import built_text_features, classifier_endpoints
from albert_tf.finetune.multiple_choice.choice_features import ChoiceFeatures
from albert_tf.finetune.multiple_choice.serving import (
    built_choice_features,
    multiple_choice_endpoints,
)
from albert_tf.finetune.span_qa.decoding import AnswerRules
from albert_tf.finetune.span_qa.features import SquadFeaturizer
from albert_tf.finetune.span_qa.serving import serving_tokenizer, span_qa_endpoints
from albert_tf.finetune.tagging.serving import built_tokenizer, tagger_endpoints
from albert_tf.finetune.tagging.word_pieces import WordPieceAligner
from albert_tf.models import (
    AlbertClassifier,
    AlbertEncoder,
    AlbertMultipleChoice,
    AlbertPretrainer,
    AlbertSpanQA,
    AlbertTokenClassifier,
)
from albert_tf.runtime import Runtime
from albert_tf.tokenization import AlbertTokenizer, train_sentencepiece
from albert_tf.tokenization.text_features import AlbertTextFeatures
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer

SAMPLE = os.path.join(os.path.dirname(__file__), os.pardir, "data", "sample.txt")
CONFIG = AlbertConfig.preset("albert_tiny", vocab_size=300)
SEQ_LENGTH = 24
A = "Ann flew to Tokyo."
B = "She landed on Monday."


def _encoder() -> AlbertEncoder:
    return AlbertEncoder(CONFIG)


def _export_task_model(
    export_dir: str, model: keras.Model, endpoints: Callable[[Predict], Endpoints], layers: list
) -> str:
    """A task model's SavedModel, as the fine-tuning driver writes its family's
    (`export_task_model` with the family's signatures and featurizer layers)."""
    return export_task_model(export_dir, model, endpoints, layers, runtime=Runtime.plain())


def _cut(value):
    """Lists of more than three items cut to three and `...`; floats rounded."""
    if isinstance(value, list):
        items = [_cut(item) for item in value[:3]]
        return [*items, "..."] if len(value) > 3 else items
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, bytes):
        return value.decode("utf-8")
    return value


def _rows(outputs: dict) -> list:
    """TF Serving's row format: one object per instance (or the value, for one output)."""
    size = next(iter(outputs.values())).shape[0]
    rows = [
        {name: _cut(np.asarray(value[i]).tolist()) for name, value in outputs.items()}
        for i in range(size)
    ]
    if len(outputs) == 1:
        return [next(iter(row.values())) for row in rows]
    return rows


def _instances_to_inputs(instances: list[dict]) -> dict:
    return {name: tf.constant([row[name] for row in instances]) for name in instances[0]}


def _example(export_dir: str, signature: str, instances: list[dict], title: str = "") -> None:
    loaded = tf.saved_model.load(export_dir)
    outputs = loaded.signatures[signature](**_instances_to_inputs(instances))
    request = {"signature_name": signature, "instances": instances}
    response = {"predictions": _rows({k: v.numpy() for k, v in sorted(outputs.items())})}
    print(f"#### {title}`{signature}`\n")
    print("```json")
    print(json.dumps(request, ensure_ascii=False))
    print(json.dumps(response, ensure_ascii=False).replace('"..."', "..."))
    print("```\n")


def main() -> None:
    keras.utils.set_random_seed(0)
    root = tempfile.mkdtemp()
    spm = train_sentencepiece([SAMPLE], os.path.join(root, "spm"), vocab_size=CONFIG.vocab_size)
    tokenizer = AlbertTokenizer(spm)
    packed = tokenizer.encode(A)[: SEQ_LENGTH - 2]
    ids = {
        "input_word_ids": [2, *packed, 3] + [0] * (SEQ_LENGTH - len(packed) - 2),
        "input_mask": [1] * (len(packed) + 2) + [0] * (SEQ_LENGTH - len(packed) - 2),
        "input_type_ids": [0] * SEQ_LENGTH,
    }

    pretrained = os.path.join(root, "pretrained")
    export_saved_model(
        pretrained,
        AlbertPretrainer(_encoder()),
        spm,
        seq_length=SEQ_LENGTH,
        top_k=3,
        runtime=Runtime.plain(),
    )
    print("### Pretraining export (`albert-tf export`)\n")
    _example(pretrained, "encode_text", [{"text_a": A}])
    _example(pretrained, "encode_text_pair", [{"text_a": A, "text_b": B}])
    _example(pretrained, "fill_mask", [{"text": "Ann flew to [MASK]."}])
    _example(pretrained, "serving_default", [ids])

    classifier = os.path.join(root, "classifier")
    features = AlbertTextFeatures(spm, SEQ_LENGTH)
    labels = ("negative", "positive")
    _export_task_model(
        classifier,
        AlbertClassifier(_encoder(), num_outputs=2),
        lambda predict: classifier_endpoints(predict, features, labels, is_pair=False),
        [built_text_features(features, is_pair=False)],
    )
    print("### Classification (`albert-tf classify --export_saved_model`)\n")
    _example(classifier, "classify_text", [{"text_a": "a gorgeous, witty film"}])
    _example(classifier, "serving_default", [ids])

    choice = os.path.join(root, "choice")
    choice_features = ChoiceFeatures(spm, 32, max_qa_length=16)
    _export_task_model(
        choice,
        AlbertMultipleChoice(_encoder()),
        lambda predict: multiple_choice_endpoints(predict, choice_features),
        [built_choice_features(choice_features)],
    )
    print("### Multiple choice (`albert-tf choice --export_saved_model`)\n")
    question = {"context": A, "question": "Where did Ann fly to?", "options": ["Tokyo", "Rome"]}
    _example(choice, "choose", [question])
    _example(choice, "serving_default", [{k: [v, v] for k, v in ids.items()}])

    squad = os.path.join(root, "squad")
    featurizer = SquadFeaturizer(tokenizer, max_seq_length=48, doc_stride=16, max_query_length=8)
    question_tokenizer = serving_tokenizer(featurizer)
    _export_task_model(
        squad,
        AlbertSpanQA(_encoder()),
        lambda predict: span_qa_endpoints(predict, question_tokenizer, featurizer, AnswerRules()),
        [question_tokenizer],
    )
    print("### Span QA (`albert-tf span-qa --export_saved_model`)\n")
    _example(squad, "answer", [{"question": "Where did Ann fly to?", "context": A}])

    tagger = os.path.join(root, "tagger")
    tags = ("O", "B-LOC", "I-LOC", "B-PER", "I-PER")
    aligner = WordPieceAligner(AlbertTextTokenizer(proto=spm), SEQ_LENGTH)
    _export_task_model(
        tagger,
        AlbertTokenClassifier(_encoder(), len(tags)),
        lambda predict: tagger_endpoints(predict, aligner, tags, character_level=False),
        [built_tokenizer(aligner)],
    )
    print("### Tagging (`albert-tf tag --export_saved_model`)\n")
    _example(tagger, "tag", [{"text": "Ann flew to Tokyo"}])
    _example(tagger, "tag_words", [{"words": ["Ann", "flew", "to", "Tokyo"], "num_words": 4}])
    _example(tagger, "serving_default", [ids])

    hub = os.path.join(root, "hub")
    export_tfhub(hub, ExportSource(AlbertPretrainer(_encoder()), spm), seq_length=SEQ_LENGTH)
    print("### TF Hub pair (`albert-tf export --format=tfhub`)\n")
    preprocessor, encoder = os.path.join(hub, "preprocessor"), os.path.join(hub, "encoder")
    _example(preprocessor, "serving_default", [{"sentences": A}], "preprocessor ")
    _example(encoder, "serving_default", [ids], "encoder ")
    _example(encoder, "mlm", [{**ids, "masked_lm_positions": [1, 2]}], "encoder ")


if __name__ == "__main__":
    main()
