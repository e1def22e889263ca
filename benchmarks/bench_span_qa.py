"""Span QA on SQuAD: featurization windows/s and prediction questions/s, next to Hugging Face.

Both in one process, on the same file and the same SentencePiece model:

* featurization: albert_tf `SquadFeaturizer.featurize` (windows, labels, original-character
  offsets; contexts tokenized once per paragraph) vs Hugging Face's fast tokenizer built
  from the same model (`albert_tf.convert.hf_tokenizer`) called as the `run_qa.py` example
  does: `truncation="only_second"`, `max_length`, `stride`, `return_overflowing_tokens`,
  `return_offsets_mapping`, `padding="max_length"`. HF's `stride` is the OVERLAP between
  windows, the original's `doc_stride` the step, so window counts differ: compare
  questions/s (the same questions), windows/s shown too. Median of `--rounds` rounds, fresh
  featurizer (empty context cache) each round.
* prediction at ALBERT-base shapes (random weights, `--preset`): albert_tf as `run_span_qa`
  predicts (featurize, `predict_outputs`: on a CPU, each batch cut to its
  longest window; decode n-best), its `model.predict` on full-length windows as controls
  (compiled without XLA, as after training; not compiled, Keras's XLA "auto", as a loaded run),
  vs `transformers.AlbertForQuestionAnswering` on PyTorch
  (HF featurization, forward under `torch.no_grad`, best start/end argmax per window) on the
  first `--predict_questions` questions.

Example:
    python benchmarks/bench_span_qa.py
    python benchmarks/bench_span_qa.py --spm_model_file=wt2/spm8k.model
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

from absl import app, flags
from peers import hf_config as peer_hf_config
from peers import hf_fast_tokenizer
from timing import interleaved_seconds, median_rates

from albert_tf.config import AlbertConfig
from albert_tf.finetune.span_qa.decoding import decode
from albert_tf.finetune.span_qa.examples import read_squad
from albert_tf.finetune.span_qa.features import SquadFeaturizer
from albert_tf.tokenization import train_sentencepiece
from albert_tf.tokenization.tokenizer import AlbertTokenizer

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SQUAD = os.path.join(os.path.dirname(REPO_ROOT), "shared", "data", "squad")

flags.DEFINE_string(
    "spm_model_file",
    "",
    "SentencePiece model (the WikiText-2 recipe writes wt2/spm8k.model); default: 8,000 pieces "
    "trained on data/sample.txt.",
)
flags.DEFINE_string("squad_file", os.path.join(SQUAD, "v2.0", "dev.json"), "SQuAD file.")
flags.DEFINE_integer("max_seq_length", 384, "Window length.")
flags.DEFINE_integer("doc_stride", 128, "albert_tf window step; HF stride (overlap).")
flags.DEFINE_integer("max_query_length", 64, "Question pieces kept (albert_tf).")
flags.DEFINE_integer("rounds", 3, "Featurization rounds (median).")
flags.DEFINE_string("preset", "albert_base", "AlbertConfig preset of the prediction model.")
flags.DEFINE_integer("predict_questions", 16, "Questions for the prediction benchmark.")
flags.DEFINE_integer("batch_size", 8, "Prediction batch size (windows).")
flags.DEFINE_integer("predict_rounds", 3, "Prediction rounds (median), interleaved.")
FLAGS = flags.FLAGS


def hf_featurize(tokenizer, examples, max_length: int, stride: int):
    return tokenizer(
        [example.question.lstrip() for example in examples],
        [example.context for example in examples],
        truncation="only_second",
        max_length=max_length,
        stride=stride,
        return_overflowing_tokens=True,
        return_offsets_mapping=True,
        padding="max_length",
    )


def timed(function, rounds: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def bench_featurization(examples, tokenizer, hf) -> None:
    def albert_tf_run():
        featurizer = SquadFeaturizer(
            tokenizer, FLAGS.max_seq_length, FLAGS.doc_stride, FLAGS.max_query_length
        )
        return len(featurizer.featurize(examples))

    def hf_run():
        return len(hf_featurize(hf, examples, FLAGS.max_seq_length, FLAGS.doc_stride)["input_ids"])

    # HF's stride is the overlap; this one makes its window step about `doc_stride` pieces.
    question_pieces = sum(
        len(q[: FLAGS.max_query_length])
        for q in tokenizer.encode_batch([example.question for example in examples])
    ) / len(examples)
    same_step = max(1, round(FLAGS.max_seq_length - 3 - question_pieces - FLAGS.doc_stride))

    def hf_same_step_run():
        return len(hf_featurize(hf, examples, FLAGS.max_seq_length, same_step)["input_ids"])

    rows = []
    functions = (
        ("albert_tf", albert_tf_run),
        ("hf_fast", hf_run),
        (f"hf_fast_overlap{same_step}", hf_same_step_run),
    )
    for name, function in functions:
        function()  # Warm-up (imports, caches of the tokenizer libraries).
        seconds, windows = timed(function, FLAGS.rounds)
        rows.append((name, windows, windows / seconds, len(examples) / seconds))
    print(
        f"\nFeaturization of {FLAGS.squad_file} ({len(examples)} questions), "
        f"max_seq_length {FLAGS.max_seq_length}, stride {FLAGS.doc_stride}, "
        f"median of {FLAGS.rounds}:"
    )
    print(f"{'':22} {'windows':>8} {'windows/s':>10} {'questions/s':>12}")
    for name, windows, per_second, questions in rows:
        print(f"{name:22} {windows:8d} {per_second:10.0f} {questions:12.0f}")
    print(
        f"albert_tf / hf_fast questions/s: {rows[0][3] / rows[1][3]:.2f}x, "
        f"windows/s: {rows[0][2] / rows[1][2]:.2f}x"
    )


def bench_prediction(examples, tokenizer, hf) -> None:
    import tensorflow as tf
    import torch
    import transformers

    from albert_tf.finetune.prediction import cuts_batches, predict_outputs
    from albert_tf.finetune.span_qa.span_qa_task import PADDING_LOGIT
    from albert_tf.models.encoder import AlbertEncoder
    from albert_tf.models.span_qa import AlbertSpanQA

    examples = examples[: FLAGS.predict_questions]
    config = AlbertConfig.preset(FLAGS.preset).replace(vocab_size=tokenizer.vocab_size)
    model = AlbertSpanQA(AlbertEncoder(config))
    torch.manual_seed(0)
    hf_model = transformers.AlbertForQuestionAnswering(peer_hf_config(config)).eval()
    featurizer = SquadFeaturizer(
        tokenizer, FLAGS.max_seq_length, FLAGS.doc_stride, FLAGS.max_query_length
    )
    windows = featurizer.featurize(examples)
    lengths = windows.input_mask.sum(axis=1)

    def albert_tf_run():  # As run_span_qa predicts: batches cut to their text.
        windows = featurizer.featurize(examples)
        batches = tf.data.Dataset.from_tensor_slices(windows.features()).batch(FLAGS.batch_size)
        decode(examples, windows, predict_outputs(model, batches, position_fill=PADDING_LOGIT))
        return len(windows)

    def predict_run(keras_model):  # The controls: Keras predict, variables, full-length windows.
        def run():
            windows = featurizer.featurize(examples)
            features = windows.features()
            logits = keras_model.predict(features, batch_size=FLAGS.batch_size, verbose=0)
            decode(examples, windows, logits)
            return len(windows)

        return run

    # As a run that trained predicted before (compiled without XLA), and as a predict-only run
    # (a loaded model, not compiled: Keras's "auto" compiles its predict step with XLA).
    compiled = AlbertSpanQA(AlbertEncoder(config))
    compiled.compile(jit_compile=False)
    loaded = AlbertSpanQA(AlbertEncoder(config))

    def hf_run():
        encoded = hf_featurize(hf, examples, FLAGS.max_seq_length, FLAGS.doc_stride)
        ids = torch.tensor(encoded["input_ids"])
        mask = torch.tensor(encoded["attention_mask"])
        types = torch.tensor(encoded["token_type_ids"])
        with torch.no_grad():
            for first in range(0, len(ids), FLAGS.batch_size):
                part = slice(first, first + FLAGS.batch_size)
                out = hf_model(
                    input_ids=ids[part], attention_mask=mask[part], token_type_ids=types[part]
                )
                out.start_logits.argmax(-1), out.end_logits.argmax(-1)
        return len(ids)

    runners = {
        "albert_tf": albert_tf_run,
        "albert_tf model.predict": predict_run(compiled),
        "albert_tf model.predict XLA": predict_run(loaded),
        "hf_torch": hf_run,
    }
    counts = {name: run() for name, run in runners.items()}  # Warm-up; the window counts.
    seconds = interleaved_seconds(runners, warmup=0, rounds=FLAGS.predict_rounds)
    print(
        f"\nPrediction, {FLAGS.preset} shapes (random weights), {len(examples)} questions, "
        f"batch {FLAGS.batch_size}, windows of {lengths.mean():.0f} pieces on average "
        f"(max_seq_length {FLAGS.max_seq_length}), median of {FLAGS.predict_rounds} rounds, "
        f"torch threads {torch.get_num_threads()}, batches cut: {cuts_batches()}"
    )
    print(f"{'':28} {'windows':>8} {'windows/s':>10} {'questions/s':>12}")
    rates, window_rates = median_rates(seconds, len(examples)), median_rates(seconds, counts)
    for name, rate in rates.items():
        print(f"{name:28} {counts[name]:8d} {window_rates[name]:10.2f} {rate:12.2f}")
    control = max(rates["albert_tf model.predict"], rates["albert_tf model.predict XLA"])
    print(
        f"albert_tf / hf_torch questions/s: {rates['albert_tf'] / rates['hf_torch']:.2f}x; "
        f"albert_tf / its faster model.predict: {rates['albert_tf'] / control:.2f}x"
    )


def main(argv) -> None:
    del argv
    with tempfile.TemporaryDirectory() as workdir:
        spm_model_file = FLAGS.spm_model_file or train_sentencepiece(
            [os.path.join(REPO_ROOT, "data", "sample.txt")],
            os.path.join(workdir, "spm"),
            vocab_size=8000,
        )
        tokenizer = AlbertTokenizer(spm_model_file)
        hf = hf_fast_tokenizer(spm_model_file, workdir)
    examples = read_squad(FLAGS.squad_file).examples
    bench_featurization(examples, tokenizer, hf)
    if FLAGS.predict_questions:
        bench_prediction(examples, tokenizer, hf)


if __name__ == "__main__":
    app.run(main)
