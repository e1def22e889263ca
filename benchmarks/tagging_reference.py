"""What holds a randomly initialized tagger down, measured against references on the same windows.

`--model=hf`: Hugging Face's `AlbertForTokenClassification` (PyTorch) trained on the windows
`albert-tf tag` trains on (the same `WordPieceAligner`, labels, head bias at the tag prior),
with the same recipe (AdamW, weight decay 0.01 off LayerNorm and bias, epsilon 1e-6, 10% linear
warmup then linear decay to 0, gradient norm 1.0, batch 32, dropout 0.1 before the head): an
independent implementation of the model and optimizer to hold `albert-tf tag`'s scores to.
`--model=cnn`: two 5-wide convolutions over 64-wide embeddings (Keras), the same windows, loss,
optimizer and steps: a model whose every position sees its neighbours from the first step.
Both print the mean training loss per epoch and conlleval's dev scores.

`--attention_of=RUN`: instead of training, the attention of a finished `albert-tf tag` run on
the first 64 dev sentences: per layer, the mean entropy of each character's attention over its
window's real pieces next to the uniform distribution's (log of the length), and the mean
attention mass on the pieces at most 2 positions away.

    python benchmarks/tagging_reference.py --model=hf --spm_model_file=zh/zh8k.model \\
        --train_file=../shared/data/chinese/peopledaily_ner/train.txt \\
        --dev_file=../shared/data/chinese/peopledaily_ner/dev.txt --sentences=2000 --epochs=4

Results: docs/tagging.md, "What else holds a random encoder down".
"""

from __future__ import annotations

import itertools
import math

import keras
import numpy as np
import tensorflow as tf
from absl import app, flags

from albert_tf.export.finetuned_run import load_finetuned_model
from albert_tf.finetune.datasets import training_batches
from albert_tf.finetune.tagging.conlleval import conlleval
from albert_tf.finetune.tagging.datasets import predict_tag_ids, training_windows
from albert_tf.finetune.tagging.sentences import TaggedSentences, read_tagged_file
from albert_tf.finetune.tagging.tagging_task import tag_set
from albert_tf.finetune.tagging.word_pieces import WordPieceAligner
from albert_tf.models.attention import attention_mask_adder
from albert_tf.models.encoder import _in_order
from albert_tf.tokenization.model_proto import load_albert_model_proto, without_dummy_prefix
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer
from albert_tf.training.optimizers import create_optimizer

flags.DEFINE_string("spm_model_file", None, "SentencePiece model.", required=True)
flags.DEFINE_string("train_file", None, "CoNLL training file (one character a line).")
flags.DEFINE_string("dev_file", None, "CoNLL dev file.", required=True)
flags.DEFINE_enum("model", "hf", ["hf", "cnn"], "The reference trained.")
flags.DEFINE_integer("sentences", 2000, "First training sentences.")
flags.DEFINE_integer("epochs", 4, "Passes over the training windows.")
flags.DEFINE_float("learning_rate", 1e-3, "Peak learning rate.")
flags.DEFINE_integer("seed", 12345, "Seed of the weights and the data order.")
flags.DEFINE_string("attention_of", None, "A finished albert-tf tag run: measure its attention.")
FLAGS = flags.FLAGS
SEQ_LENGTH, BATCH = 64, 32


def _aligner() -> WordPieceAligner:
    proto = without_dummy_prefix(load_albert_model_proto(FLAGS.spm_model_file))
    return WordPieceAligner(AlbertTextTokenizer(proto=proto), SEQ_LENGTH)


def _score(dev: TaggedSentences, labels: tuple[str, ...], predicted: list) -> str:
    scores = conlleval(dev.tags, [[labels[i] for i in row] for row in predicted])
    return (
        f"dev F1 {scores['f1']:.3f} (P {scores['precision']:.3f} R {scores['recall']:.3f}), "
        f"token accuracy {scores['accuracy']:.4f}"
    )


def _cnn(num_labels: int, steps: int) -> keras.Model:
    names = ("input_word_ids", "input_mask", "input_type_ids")
    inputs = {name: keras.Input((None,), dtype="int32", name=name) for name in names}
    x = keras.layers.Embedding(8000, 64)(inputs["input_word_ids"])
    for _ in range(2):
        x = keras.layers.Conv1D(128, 5, padding="same", activation="relu")(x)
    model = keras.Model(inputs, keras.layers.Dense(num_labels)(x))
    optimizer = create_optimizer(
        "adamw", FLAGS.learning_rate, steps, steps // 10, bias_correction=True
    )
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    model.compile(optimizer=optimizer, loss=loss)
    return model


def run_cnn(windows, count, aligner, dev, labels) -> None:
    keras.utils.set_random_seed(FLAGS.seed)
    model = _cnn(len(labels), (count // BATCH) * FLAGS.epochs)
    history = model.fit(
        training_batches(windows, count, BATCH, FLAGS.seed),
        epochs=FLAGS.epochs,
        steps_per_epoch=count // BATCH,
        verbose=0,
    )
    print("epoch losses:", " ".join(f"{loss:.4f}" for loss in history.history["loss"]))
    print("cnn:", _score(dev, labels, predict_tag_ids(model, aligner, dev.words, 64)))


def _arrays(windows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = list(windows.as_numpy_iterator())
    ids = np.stack([features["input_word_ids"] for features, _ in rows])
    mask = np.stack([features["input_mask"] for features, _ in rows])
    labels = np.stack([label for _, label in rows]).astype(np.int64)
    return ids, mask, np.where(labels < 0, -100, labels)  # -100: torch's ignored label.


def _hf_model(num_labels: int, label_counts: np.ndarray, vocab_size: int):
    import torch
    from transformers import AlbertConfig, AlbertForTokenClassification

    config = AlbertConfig(
        vocab_size=vocab_size,
        embedding_size=64,
        hidden_size=128,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=512,
        max_position_embeddings=128,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        classifier_dropout_prob=0.1,
        num_labels=num_labels,
        hidden_act="gelu_new",
    )
    model = AlbertForTokenClassification(config)
    prior = (label_counts + 1.0) / (label_counts + 1.0).sum()  # As start_at_label_prior.
    with torch.no_grad():
        model.classifier.bias.copy_(torch.tensor(np.log(prior)))
    return model


def _hf_optimizer(model, total_steps: int):
    import torch
    from transformers import get_linear_schedule_with_warmup

    def no_decay(name: str) -> bool:
        return "bias" in name or "LayerNorm" in name

    named = list(model.named_parameters())
    groups = [
        {"params": [p for n, p in named if not no_decay(n)], "weight_decay": 0.01},
        {"params": [p for n, p in named if no_decay(n)], "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(groups, lr=FLAGS.learning_rate, eps=1e-6)
    warmup = int(0.1 * total_steps)
    return optimizer, get_linear_schedule_with_warmup(optimizer, warmup, total_steps)


def run_hf(windows, count, aligner, dev, labels, label_counts) -> None:
    import torch

    torch.manual_seed(FLAGS.seed)
    ids, mask, targets = _arrays(windows)
    model = _hf_model(len(labels), label_counts, aligner.tokenizer.vocab_size)
    steps_per_epoch = count // BATCH
    optimizer, schedule = _hf_optimizer(model, steps_per_epoch * FLAGS.epochs)
    rng, losses = np.random.default_rng(FLAGS.seed), []
    model.train()
    for _ in range(FLAGS.epochs):
        order, epoch = rng.permutation(count), []
        for step in range(steps_per_epoch):
            rows = order[step * BATCH : (step + 1) * BATCH]
            loss = model(
                input_ids=torch.tensor(ids[rows], dtype=torch.long),
                attention_mask=torch.tensor(mask[rows]),
                labels=torch.tensor(targets[rows]),
            ).loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            epoch.append(loss.item())
        losses.append(np.mean(epoch))
    print("epoch losses:", " ".join(f"{loss:.4f}" for loss in losses))
    print("hf:", _score(dev, labels, _hf_predictions(model, aligner, dev)))


def _hf_predictions(model, aligner: WordPieceAligner, dev: TaggedSentences) -> list:
    import torch

    model.eval()
    predicted = []
    for start in range(0, len(dev), 256):
        features, alignment = aligner(tf.ragged.constant(dev.words[start : start + 256]))
        with torch.no_grad():
            logits = model(
                input_ids=torch.tensor(features["input_word_ids"].numpy(), dtype=torch.long),
                attention_mask=torch.tensor(features["input_mask"].numpy()),
            ).logits.numpy()
        words = logits[alignment["word_window"].numpy(), alignment["word_position"].numpy()]
        splits = alignment["row_splits"].numpy()
        tags = words.argmax(-1)
        predicted += [tags[a:b] for a, b in zip(splits[:-1], splits[1:], strict=True)]
    return predicted


def measure_attention(run_dir: str, aligner: WordPieceAligner, dev: TaggedSentences) -> None:
    """Per layer: attention entropy against uniform, and the mass within 2 positions."""
    encoder = load_finetuned_model(run_dir).encoder
    features, _ = aligner(tf.ragged.constant(dev.take(64).words))
    lengths = features["input_mask"].numpy().sum(1)
    adder = np.asarray(attention_mask_adder(features["input_mask"]))
    x = encoder.embeddings(features["input_word_ids"], features["input_type_ids"], training=False)
    distance = np.abs(np.arange(SEQ_LENGTH)[:, None] - np.arange(SEQ_LENGTH)[None, :])
    for index, block in enumerate(_in_order(encoder.layer_blocks), start=1):
        attention = block.attention
        query = attention._split_heads(attention.query(x), x.shape[0], SEQ_LENGTH)
        key = attention._split_heads(attention.key(x), x.shape[0], SEQ_LENGTH)
        scores = np.einsum("btnd,bsnd->bnts", query, key) / math.sqrt(attention.head_size)
        probs = tf.nn.softmax(scores + adder, -1).numpy()
        entropy, uniform, near = [], [], []
        for row, length in enumerate(lengths):
            p = probs[row, :, :length, :length]
            entropy.append((-(p * np.log(p + 1e-12)).sum(-1)).mean())
            uniform.append(math.log(length))
            near.append((p * (distance[:length, :length] <= 2)).sum(-1).mean())
        print(
            f"layer {index}: attention entropy {np.mean(entropy):.2f} (uniform "
            f"{np.mean(uniform):.2f}), mass within 2 positions {np.mean(near):.3f}"
        )
        x = block(x, features["input_mask"], training=False)


def main(argv: list[str]) -> None:
    del argv
    aligner, dev = _aligner(), read_tagged_file(FLAGS.dev_file)
    if FLAGS.attention_of:
        measure_attention(FLAGS.attention_of, aligner, dev)
        return
    train = read_tagged_file(FLAGS.train_file).take(FLAGS.sentences)
    labels = tag_set(train)
    label_ids = train.tag_ids(labels)
    windows, count = training_windows(train.words, label_ids, aligner)
    counts = np.bincount(
        np.fromiter(itertools.chain.from_iterable(label_ids), np.int64), minlength=len(labels)
    )
    print(f"{len(train)} sentences, {count} windows, {(count // BATCH) * FLAGS.epochs} steps")
    if FLAGS.model == "cnn":
        run_cnn(windows, count, aligner, dev, labels)
    else:
        run_hf(windows, count, aligner, dev, labels, counts.astype(np.float64))


if __name__ == "__main__":
    app.run(main)
