"""Token tagging (NER) prediction: albert_tf vs Hugging Face, sentences/s.

Words in, one tag per word out, ALBERT-base shapes (random weights; the tags of the data), on
the first `--sentences` sentences of a CoNLL file, in one process, with the same SentencePiece
model and batch size:

* `albert_tf`: `AlbertTokenClassifier` predicting as `run_tagging` does: `predict_tag_ids`
  (in-graph `WordPieceAligner` featurization into `--seq_length` windows, the logits at each
  word's first piece; batches cut to their longest window), per precision of the model
  (float32, mixed_bfloat16);
* `hf`: `transformers.AlbertForTokenClassification` on PyTorch (float32 and bf16 weights) with
  the fast tokenizer built from the same model (`albert_tf.convert.hf_tokenizer`) called with
  `is_split_into_words`, truncation at `--seq_length` and padding to the longest of the batch,
  forward under `torch.no_grad`, argmax, each word's first piece through `word_ids()`.

Each setting is the median of `--rounds` rounds, interleaved after one warm-up each.

Illustration (not run):
    python benchmarks/bench_tagging.py --sentences=256 --precisions=float32,mixed_bfloat16
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from collections.abc import Callable

import keras
from peers import hf_config as peer_hf_config
from peers import hf_fast_tokenizer
from timing import interleaved_seconds, median_rates

from albert_tf.config import AlbertConfig
from albert_tf.finetune.tagging.datasets import predict_tag_ids
from albert_tf.finetune.tagging.sentences import read_tagged_file
from albert_tf.finetune.tagging.tagging_task import tag_set
from albert_tf.finetune.tagging.word_pieces import WordPieceAligner
from albert_tf.models import AlbertEncoder
from albert_tf.models.token_classifier import AlbertTokenClassifier
from albert_tf.tokenization import train_sentencepiece
from albert_tf.tokenization.text_tokenizer_layer import AlbertTextTokenizer
from albert_tf.training.precision import resolve_precision

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WNUT17 = os.path.join(os.path.dirname(REPO_ROOT), "shared", "data", "wnut17")
Tagger = Callable[[list[list[str]]], list[list[str]]]


def albert_tf_tagger(config, spm_file: str, labels, precision: str, args) -> Tagger:
    encoder = AlbertEncoder(config, dtype=precision)
    model = AlbertTokenClassifier(encoder, len(labels), labels=labels, dtype=precision)
    aligner = WordPieceAligner(AlbertTextTokenizer(proto=spm_file), args.seq_length)

    def tag(sentences):  # As `run_tagging`'s `_Run._predict_tags`.
        ids = predict_tag_ids(model, aligner, sentences, args.batch_size)
        return [[labels[i] for i in row] for row in ids]

    return tag


def hf_tagger(config, tokenizer, labels, precision: str, args) -> Tagger:
    import torch
    import transformers

    torch.manual_seed(0)
    hf_config = peer_hf_config(config, num_labels=len(labels))
    model = transformers.AlbertForTokenClassification(hf_config).eval()
    if precision == "mixed_bfloat16":
        model = model.to(torch.bfloat16)

    def tag(sentences):
        tags = []
        for first in range(0, len(sentences), args.batch_size):
            batch = sentences[first : first + args.batch_size]
            encoded = hf_encode(tokenizer, batch, args.seq_length)
            with torch.no_grad():
                ids = model(**encoded).logits.argmax(-1).tolist()
            for row, words in enumerate(batch):
                predicted = [0] * len(words)  # Words cut off by truncation keep tag 0.
                for position, word in first_pieces(encoded.word_ids(row)).items():
                    predicted[word] = ids[row][position]
                tags.append([labels[i] for i in predicted])
        return tags

    return tag


def hf_encode(tokenizer, batch: list[list[str]], seq_length: int):
    return tokenizer(
        batch,
        is_split_into_words=True,
        truncation=True,
        max_length=seq_length,
        padding="longest",
        return_tensors="pt",
    )


def first_pieces(word_ids: list[int | None]) -> dict[int, int]:
    """{position: word} of the first piece of each word."""
    seen, result = set(), {}
    for position, word in enumerate(word_ids):
        if word is not None and word not in seen:
            seen.add(word)
            result[position] = word
    return result


def check(tags: list[list[str]], words: list[list[str]]) -> None:
    """Every word gets exactly one tag."""
    assert [len(row) for row in tags] == [len(row) for row in words]


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="albert_base")
    parser.add_argument("--data_file", default=os.path.join(WNUT17, "emerging.dev.conll"))
    parser.add_argument("--sentences", type=int, default=256)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--precisions", default="float32,mixed_bfloat16")
    parser.add_argument("--spm_model_file", default="", help="default: trained on sample.txt")
    parser.add_argument("--vocab_size", type=int, default=8000, help="of the trained spm model")
    return parser.parse_args()


def main() -> None:
    args = _parse_args()
    import torch

    torch.set_num_threads(os.cpu_count() or 1)
    keras.utils.set_random_seed(0)
    data = read_tagged_file(args.data_file).take(args.sentences)
    labels = tag_set(data)
    with tempfile.TemporaryDirectory() as workdir:
        spm_file = args.spm_model_file or train_sentencepiece(
            [os.path.join(REPO_ROOT, "data", "sample.txt")],
            os.path.join(workdir, "spm"),
            vocab_size=args.vocab_size,
        )
        vocab_size = AlbertTextTokenizer(proto=spm_file).vocab_size
        config = AlbertConfig.preset(args.preset, vocab_size=vocab_size)
        tokenizer = hf_fast_tokenizer(spm_file, workdir)
        taggers = {}
        for precision in args.precisions.split(","):
            taggers[f"albert_tf {precision}"] = albert_tf_tagger(
                config, spm_file, labels, precision, args
            )
            taggers[f"hf {precision}"] = hf_tagger(config, tokenizer, labels, precision, args)
            print(f"  built albert_tf and hf {precision}", flush=True)
        seconds = interleaved_seconds(
            {
                name: (lambda t=tag: check(t(data.words), data.words))
                for name, tag in taggers.items()
            },
            warmup=1,
            rounds=args.rounds,
        )
    _report(args, data, tokenizer, seconds, torch.get_num_threads())


def _report(args, data, tokenizer, seconds: dict, threads: int) -> None:
    lengths, cut = [], 0
    for first in range(0, len(data), args.batch_size):
        batch = data.words[first : first + args.batch_size]
        encoded = hf_encode(tokenizer, batch, args.seq_length)
        lengths.append(encoded["input_ids"].shape[1])
        cut += sum(len(w) - len(first_pieces(encoded.word_ids(r))) for r, w in enumerate(batch))
    print(
        f"\n{args.preset} tagging (random weights), {len(data)} sentences / {data.num_words} "
        f"words of {os.path.basename(args.data_file)}, batch {args.batch_size}, seq_length "
        f"{args.seq_length}, median of {args.rounds} rounds, torch threads {threads}"
    )
    print(
        f"hf padded length per batch: mean {statistics.mean(lengths):.0f}, max {max(lengths)}; "
        f"words hf leaves untagged (truncated): {cut}"
    )
    print(f"{'setting':26s} {'sentences/s':>12s} {'words/s':>9s}")
    rates, word_rates = median_rates(seconds, len(data)), median_rates(seconds, data.num_words)
    for name, rate in rates.items():
        print(f"{name:26s} {rate:12.2f} {word_rates[name]:9.1f}")
    ours = max((rate, name) for name, rate in rates.items() if name.startswith("albert_tf"))
    peer = max((rate, name) for name, rate in rates.items() if name.startswith("hf"))
    print(
        f"\nbest albert_tf {ours[0]:.2f} sentences/s ({ours[1]}) vs best hf {peer[0]:.2f} "
        f"({peer[1]}): {ours[0] / peer[0]:.2f}x"
    )
    print(f"--precision=auto picks {resolve_precision('auto')} on this machine")


if __name__ == "__main__":
    main()
