"""The whole pipeline on the embedded sample corpus, in a few minutes on a CPU.

text -> SentencePiece tokenizer -> SOP/n-gram TFRecords -> pretraining with
evaluation -> SavedModel export -> a query against the SavedModel.

  albert-tf quickstart --workdir runs/quickstart

The sample corpus (the repository's data/sample.txt, see data/SOURCE.md) ships inside the
package, so the command runs from an installed wheel too; --input_file takes another one.
"""

from __future__ import annotations

import importlib.resources
import os
import shutil
import time

from absl import flags, logging

from albert_tf import cli
from albert_tf.config_flags import config_from_flags, define_flags
from albert_tf.data.documents import Document, read_text_documents
from albert_tf.data.held_out import check_held_out, held_out_part
from albert_tf.errors import MissingInputError
from albert_tf.output_lock import output_lock
from albert_tf.runtime.runtime import RuntimeOptions

# Package data: a link to data/sample.txt in the repository, a copy in the wheel.
SAMPLE_CORPUS = "sample.txt"

FLAGS = flags.FLAGS
flags.DEFINE_string("workdir", "runs/quickstart", "Where every output goes (replaced if present).")
flags.DEFINE_string(
    "input_file", "", "Corpus in the original format (default: the embedded sample corpus)."
)
flags.DEFINE_integer("eval_documents", 4, "Last documents of the corpus held out for evaluation.")
flags.DEFINE_integer("vocab_size", 2000, "SentencePiece vocabulary size.")
flags.DEFINE_integer("max_seq_length", 64, "Sequence length of the pretraining records.")
flags.DEFINE_integer("max_predictions_per_seq", 10, "Masked positions per sequence.")
flags.DEFINE_integer("dupe_factor", 4, "Passes over the corpus with different masks.")
flags.DEFINE_integer("num_train_steps", 600, "Pretraining steps.")
flags.DEFINE_integer("train_batch_size", 32, "Pretraining batch size.")
flags.DEFINE_float("learning_rate", 3e-3, "Peak LAMB learning rate.")
flags.DEFINE_string("precision", "float32", "float32 | mixed_bfloat16 | mixed_float16.")
define_flags(RuntimeOptions)  # The speed-only forms of pretraining and export.


def _step(title: str):
    print(f"\n=== {title}", flush=True)
    return time.perf_counter()


def _done(start: float, what: str) -> None:
    print(f"    {what} ({time.perf_counter() - start:.1f} s)", flush=True)


def read_corpus(input_file: str, eval_documents: int) -> list[Document]:
    """The corpus's documents (the original format), checked before anything is written.

    An empty `input_file` reads the sample corpus shipped with the package.
    """
    if not input_file:
        sample = importlib.resources.files("albert_tf.commands").joinpath(SAMPLE_CORPUS)
        with importlib.resources.as_file(sample) as path:
            return read_corpus(str(path), eval_documents)
    if not os.path.isfile(input_file):
        raise MissingInputError("no such corpus file", where=input_file, fix="check --input_file")
    documents = list(read_text_documents([input_file]))
    check_held_out(documents, eval_documents, where=input_file)
    print(f"Corpus: {input_file} ({len(documents)} documents, {eval_documents} held out)")
    return documents


def split_corpus(documents: list[Document], eval_documents: int, workdir: str) -> tuple[str, str]:
    """Writes the held-out documents (`albert_tf.data.held_out`) to eval.txt, the rest to
    train.txt, in the original format."""
    paths = []
    for name, part in (("train.txt", "train"), ("eval.txt", "eval")):
        path = os.path.join(workdir, "text", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        texts = ["\n".join(d.sentences) for d in held_out_part(documents, eval_documents, part)]
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n\n".join(texts) + "\n")
        paths.append(path)
    return paths[0], paths[1]


def mean_pooled(sequence_output, input_mask):
    """Unit-length mean of the token vectors of each row (padding excluded)."""
    import tensorflow as tf  # Not at the top: `--help` answers without it.

    mask = tf.cast(input_mask, sequence_output.dtype)[:, :, None]
    mean = tf.reduce_sum(sequence_output * mask, axis=1) / tf.reduce_sum(mask, axis=1)
    return tf.math.l2_normalize(mean, axis=-1)


def main(argv: list[str]) -> None:
    del argv
    total = time.perf_counter()
    workdir = os.path.abspath(FLAGS.workdir)
    documents = read_corpus(FLAGS.input_file, FLAGS.eval_documents)  # Checked first.
    runtime = config_from_flags(RuntimeOptions).resolve()
    with output_lock(workdir, directory=True):
        _run_pipeline(workdir, documents, total, runtime)


def _run_pipeline(workdir: str, documents: list[Document], total: float, runtime) -> None:
    import tensorflow as tf  # The pipeline's modules: not loaded for `--help`.
    import tensorflow_text  # noqa: F401  (registers the SentencePiece ops for the SavedModel)

    from albert_tf.config import AlbertConfig
    from albert_tf.data.builder import BuilderOptions, build_pretraining_data
    from albert_tf.export.fill_mask_words import whole_word_candidates
    from albert_tf.export.saved_model import export_saved_model
    from albert_tf.tokenization.train import train_sentencepiece
    from albert_tf.training.pretrain import train_and_evaluate
    from albert_tf.training.pretrain_config import PretrainConfig

    if os.path.exists(workdir):
        shutil.rmtree(workdir)
    os.makedirs(workdir)
    train_txt, eval_txt = split_corpus(documents, FLAGS.eval_documents, workdir)

    start = _step("1/5 Tokenizer: SentencePiece unigram with the ALBERT id layout")
    spm_model = train_sentencepiece(
        [train_txt], os.path.join(workdir, "tokenizer", "spm"), vocab_size=FLAGS.vocab_size
    )
    _done(start, f"wrote {spm_model}")

    start = _step("2/5 Pretraining data: SOP pairs with whole-word n-gram masks -> TFRecords")
    records = {}
    for split, text, dupe_factor in (
        ("train", train_txt, FLAGS.dupe_factor),
        ("eval", eval_txt, 1),
    ):
        manifest = build_pretraining_data(
            BuilderOptions(
                input_file=text,
                spm_model_file=spm_model,
                output_dir=os.path.join(workdir, "records", split),
                max_seq_length=FLAGS.max_seq_length,
                max_predictions_per_seq=FLAGS.max_predictions_per_seq,
                dupe_factor=dupe_factor,
                num_output_shards=2 if split == "train" else 1,
            )
        )
        records[split] = os.path.join(workdir, "records", split, "*.tfrecord")
        print(f"    {split}: {manifest['statistics']['instances']} instances in {records[split]}")
    _done(start, "records written")

    start = _step("3/5 Pretraining a small ALBERT (LAMB, warmup + linear decay) with evaluation")
    albert_config = AlbertConfig.preset(
        "albert_tiny", vocab_size=FLAGS.vocab_size, max_position_embeddings=FLAGS.max_seq_length
    )
    config_file = os.path.join(workdir, "albert_config.json")
    albert_config.to_json_file(config_file)
    pretrain_dir = os.path.join(workdir, "pretrain")
    metrics = train_and_evaluate(
        PretrainConfig(
            input_file=records["train"],
            eval_file=records["eval"],
            albert_config_file=config_file,
            do_train=True,
            do_eval=True,
            train_batch_size=FLAGS.train_batch_size,
            eval_batch_size=32,
            max_seq_length=FLAGS.max_seq_length,
            max_predictions_per_seq=FLAGS.max_predictions_per_seq,
            learning_rate=FLAGS.learning_rate,
            num_train_steps=FLAGS.num_train_steps,
            num_warmup_steps=FLAGS.num_train_steps // 10,
            save_checkpoints_steps=FLAGS.num_train_steps // 3,
            max_eval_steps=20,
            log_every_steps=50,
            precision=FLAGS.precision,
        ),
        pretrain_dir,
        runtime,
    )
    for name in sorted(k for k in metrics if k.startswith("eval/")):
        print(f"    {name} = {metrics[name]:.4f}")
    _done(start, f"checkpoints and encoder.keras in {pretrain_dir}")

    start = _step("4/5 Export: SavedModel with the tokenizer inside the graph")
    export_dir = os.path.join(workdir, "export")
    export_saved_model(
        export_dir,
        pretrain_dir,  # the latest training checkpoint: encoder and MLM head
        spm_model,
        albert_config=config_file,
        seq_length=FLAGS.max_seq_length,
        top_k=50,  # fill_mask ranks pieces; step 5 shows the best whole words among them
        runtime=runtime,
    )
    _done(start, f"wrote {export_dir}")

    start = _step("5/5 Query the SavedModel (needs only tensorflow + tensorflow_text)")
    served = tf.saved_model.load(export_dir)
    print(f"    signatures: {sorted(served.signatures)}")
    sentences = [
        "The game was released in Japan in 2011.",
        "The album was released in Japan in 2011.",
        "The hurricane weakened over cold water.",
    ]
    encoded = served.signatures["encode_text"](text_a=tf.constant(sentences))
    embeddings = mean_pooled(encoded["sequence_output"], encoded["input_mask"])
    print(
        f"    encode_text: sequence_output {tuple(encoded['sequence_output'].shape)}, "
        f"pooled_output {tuple(encoded['pooled_output'].shape)}"
    )
    for i, j in ((0, 1), (0, 2)):
        similarity = float(tf.reduce_sum(embeddings[i] * embeddings[j]))
        print(f"    cosine({sentences[i]!r}, {sentences[j]!r}) = {similarity:.3f}")
    filled = served.signatures["fill_mask"](text=tf.constant(["The game was [MASK] in Japan."]))
    # fill_mask returns the top 50 pieces; a person wants the best whole words among them.
    words = whole_word_candidates(
        filled["top_k_pieces"].numpy()[0, 0], filled["top_k_scores"].numpy()[0, 0], count=5
    )
    print(
        "    fill_mask 'The game was [MASK] in Japan.': "
        + ", ".join(f"{word} ({score:.2f})" for word, score in words)
    )
    _done(start, "queried")
    print(f"\nDone in {time.perf_counter() - total:.0f} s. Everything is under {workdir}")
    logging.info("quickstart finished")


def run() -> None:
    """`albert-tf quickstart`: parses `sys.argv` and runs `main`, then exits."""
    cli.run(main, loads_tensorflow=True)


if __name__ == "__main__":
    run()
