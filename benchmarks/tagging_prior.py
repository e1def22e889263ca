"""Why a young tagger predicts only `O`, measured: the encoder's output collapses without the
tag prior on the head.

Fine-tunes the same randomly initialized tagger twice on the first `--sentences` sentences of
a CoNLL file, once with the head's bias at zero and once started at the tags' prior
(`DenseTaskModel.start_at_label_prior`, what `albert-tf tag` does), and prints every
`--every` steps the training loss and the share of the encoder output's variance that differs
between tokens (1 - |mean|^2 / mean|x|^2 over the real tokens of a fixed batch; 0 means every
token leaves the encoder as the same vector), at the embeddings and after each layer.

    python benchmarks/tagging_prior.py --spm_model_file=zh/zh8k.model \\
        --train_file=../shared/data/chinese/peopledaily_ner/train.txt --character_level

(`zh/zh8k.model`: docs/chinese.md's tokenizer; `../shared/data` holds the project's public
datasets, see its SOURCE.md files.) Results: docs/tagging.md, "The tag prior".
"""

from __future__ import annotations

import itertools

import keras
import numpy as np
from absl import app, flags

from albert_tf.config import AlbertConfig
from albert_tf.finetune.datasets import training_batches
from albert_tf.finetune.tagging.datasets import training_windows
from albert_tf.finetune.tagging.sentences import read_tagged_file
from albert_tf.finetune.tagging.tagging_task import tag_set
from albert_tf.finetune.tagging.word_pieces import IGNORE_LABEL, WordPieceAligner
from albert_tf.models.encoder import AlbertEncoder, _in_order
from albert_tf.models.token_classifier import AlbertTokenClassifier
from albert_tf.tokenization.model_proto import load_albert_model_proto, without_dummy_prefix
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer
from albert_tf.training.optimizers import create_optimizer

flags.DEFINE_string("spm_model_file", None, "SentencePiece model.", required=True)
flags.DEFINE_string("train_file", None, "CoNLL training file.", required=True)
flags.DEFINE_bool("character_level", False, "One character a line (Chinese NER).")
flags.DEFINE_integer("sentences", 1000, "First sentences trained on.")
flags.DEFINE_integer("steps", 200, "Optimizer steps per run (10% warmup).")
flags.DEFINE_integer("every", 25, "Steps between reports.")
flags.DEFINE_float("learning_rate", 1e-3, "AdamW peak learning rate.")
flags.DEFINE_float("dropout", 0.0, "Dropout everywhere (0: the collapse alone).")
flags.DEFINE_integer("hidden_size", 128, "H (E = H / 2, I = 4 H, 2 heads).")
flags.DEFINE_integer("layers", 2, "Layers (all shared).")
flags.DEFINE_integer("seq_length", 64, "Window length.")
FLAGS = flags.FLAGS


def _tagger(vocab_size: int, num_labels: int) -> AlbertTokenClassifier:
    hidden, dropout = FLAGS.hidden_size, FLAGS.dropout
    config = AlbertConfig(
        vocab_size=vocab_size,
        embedding_size=hidden // 2,
        hidden_size=hidden,
        num_hidden_layers=FLAGS.layers,
        num_attention_heads=2,
        intermediate_size=4 * hidden,
        hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
    )
    return AlbertTokenClassifier(AlbertEncoder(config), num_labels, dropout_rate=dropout)


def _token_spread(encoder: AlbertEncoder, probe: dict) -> list[float]:
    """Per stage (embeddings, each layer): the share of variance that differs between tokens."""
    mask = np.asarray(probe["input_mask"]).astype(bool)
    x = encoder.embeddings(probe["input_word_ids"], probe["input_type_ids"], training=False)
    stages = [x]
    for block in _in_order(encoder.layer_blocks):
        x = block(x, probe["input_mask"], training=False)
        stages.append(x)
    spreads = []
    for stage in stages:
        tokens = np.asarray(stage)[mask]
        spreads.append(float(((tokens - tokens.mean(0)) ** 2).mean() / (tokens**2).mean()))
    return spreads


def main(argv: list[str]) -> None:
    del argv
    sentences = read_tagged_file(FLAGS.train_file).take(FLAGS.sentences)
    labels = tag_set(sentences)
    label_ids = sentences.tag_ids(labels)
    proto = load_albert_model_proto(FLAGS.spm_model_file)
    if FLAGS.character_level:
        proto = without_dummy_prefix(proto)
    tokenizer = AlbertTextTokenizer(proto=proto)
    aligner = WordPieceAligner(tokenizer, FLAGS.seq_length)
    windows, count = training_windows(sentences.words, label_ids, aligner)
    probe = next(iter(windows.batch(8)))[0]
    counts = np.bincount(
        np.fromiter(itertools.chain.from_iterable(label_ids), np.int64), minlength=len(labels)
    )
    prior = counts / counts.sum()
    shares = dict(zip(labels, prior.round(4).tolist(), strict=True))
    print(f"{len(sentences)} sentences, {count} windows; tags {shares}")
    print(f"prior entropy (the loss of predicting the prior): {-(prior * np.log(prior)).sum():.3f}")
    for start_at_prior in (False, True):
        keras.utils.set_random_seed(1)
        model = _tagger(tokenizer.vocab_size, len(labels))
        if start_at_prior:
            model.start_at_label_prior(counts)
        model.compile(
            optimizer=create_optimizer(
                "adamw", FLAGS.learning_rate, FLAGS.steps, FLAGS.steps // 10, bias_correction=True
            ),
            loss=keras.losses.SparseCategoricalCrossentropy(
                from_logits=True, ignore_class=IGNORE_LABEL
            ),
        )
        data = training_batches(windows, count, 32, seed=1)
        name = "head at the prior" if start_at_prior else "head bias zero"
        spreads = " ".join(f"{s:.3f}" for s in _token_spread(model.encoder, probe))
        print(f"[{name}] step 0: token spread {spreads}")
        for step in range(FLAGS.every, FLAGS.steps + 1, FLAGS.every):
            history = model.fit(data, epochs=1, steps_per_epoch=FLAGS.every, verbose=0)
            spreads = " ".join(f"{s:.3f}" for s in _token_spread(model.encoder, probe))
            loss = history.history["loss"][-1]
            print(f"[{name}] step {step}: loss {loss:.3f}, token spread {spreads}", flush=True)


if __name__ == "__main__":
    app.run(main)
