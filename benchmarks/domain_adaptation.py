"""Domain adaptation, measured: a WikiText-2 ALBERT continued on Chinese text, with and without
vocabulary extension (docs/domain_adaptation.md).

Every step is an `albert-tf` command (printed before it runs), so the table's figures come from
what a user runs:

1. text: WikiText-2 (general: the start's pretraining text) and the domain, Chinese: the
   ChnSentiCorp train reviews and the People's Daily sentences (training text), the
   ChnSentiCorp dev reviews (held-out domain text);
2. `tokenizer`: the general 8k SentencePiece model; `tokenizer --extend`: the domain pieces
   appended to it (its report: pieces per word and per character, `<unk>` share, unchanged
   words, on domain and general text);
3. `data`: records of each text with each tokenizer (length 64, 10 predictions; the Chinese
   ones masked piece by piece, `--do_whole_word_mask=false`: its text has no spaces);
4. `pretrain`: the start, 4-layer H=128 ALBERT on WikiText-2 (the pretraining_wikitext2.md
   recipe, shorter);
5. continued pretraining on the domain records, from the start: `old vocabulary` (the 8k model:
   Chinese is mostly `<unk>`), `extended` (`convert --grow_vocabulary`, then `pretrain`), and
   `extended, new rows first, 20% general` (`--new_rows_only_steps`, `--general_mix_ratio`);
   each evaluated on held-out domain and general records (`--general_eval_file`);
6. `classify`: ChnSentiCorp sentiment (the domain's task) fine-tuned from the start (old and
   grown vocabulary, before adaptation) and from each adapted model, over several seeds.

Rerunning skips the finished steps (each writes its output last). `results.json` holds every
figure; `results.md` the tables.

Illustration (not run here; about 2.4 hours on 2 CPU cores shared with other work):
    python benchmarks/domain_adaptation.py --workdir=/tmp/domain_adaptation
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED_DATA = os.path.join(REPO_ROOT, "..", "shared", "data")
CHINESE = os.path.join(SHARED_DATA, "chinese")
# Chinese sentence ends (ALBERT's normalization turns the full-width ！？ into ! ?).
_SENTENCE_END = re.compile(r"(?<=[。！？!?])")


def run(*args: str, log: str | None = None) -> None:
    """Runs `albert-tf ARGS...` (this interpreter, this checkout), echoing the command."""
    command = [sys.executable, "-m", "albert_tf.commands", *args]
    print("$ albert-tf " + " ".join(shlex.quote(a) for a in args), flush=True)
    start = time.time()
    env = dict(os.environ, PYTHONPATH=REPO_ROOT)
    with open(log or os.devnull, "w") as handle:
        result = subprocess.run(command, stdout=handle, stderr=subprocess.STDOUT, env=env)
    if result.returncode:
        sys.exit(f"failed ({result.returncode}): see {log}")
    print(f"  ({time.time() - start:.0f} s)", flush=True)


def write_documents(path: str, documents: list[list[str]]) -> None:
    """The original format: one sentence per line, a blank line between documents."""
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        handle.write("\n\n".join("\n".join(sentences) for sentences in documents) + "\n")
    os.replace(path + ".tmp", path)


def review_documents(tsv: str) -> list[list[str]]:
    """ChnSentiCorp reviews, one document each, split after Chinese sentence ends."""
    with open(tsv, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    documents = []
    for row in rows:
        sentences = [s.strip() for s in _SENTENCE_END.split(row["text_a"]) if s.strip()]
        if sentences:
            documents.append(sentences)
    return documents


def people_daily_documents(path: str, per_document: int = 8) -> list[list[str]]:
    """People's Daily sentences (one character per line there), `per_document` per document."""
    sentences, characters = [], []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                characters.append(line.split()[0])
            elif characters:
                sentences.append("".join(characters))
                characters = []
    if characters:
        sentences.append("".join(characters))
    return [sentences[i : i + per_document] for i in range(0, len(sentences), per_document)]


def prepare_text(workdir: str) -> dict[str, str]:
    """The four text files (original format); written once."""
    from albert_tf.data.documents import convert_wikitext

    paths = {
        name: os.path.join(workdir, "text", f"{name}.txt")
        for name in ("general_train", "general_eval", "domain_train", "domain_eval")
    }
    os.makedirs(os.path.join(workdir, "text"), exist_ok=True)
    wikitext = os.path.join(SHARED_DATA, "wikitext-2-raw")
    if not os.path.exists(paths["general_train"]):
        convert_wikitext(os.path.join(wikitext, "train.txt"), paths["general_train"])
    if not os.path.exists(paths["general_eval"]):
        convert_wikitext(os.path.join(wikitext, "valid.txt"), paths["general_eval"])
    if not os.path.exists(paths["domain_train"]):
        documents = review_documents(os.path.join(CHINESE, "chnsenticorp", "train.tsv"))
        documents += people_daily_documents(os.path.join(CHINESE, "peopledaily_ner", "train.txt"))
        write_documents(paths["domain_train"], documents)
    if not os.path.exists(paths["domain_eval"]):
        documents = review_documents(os.path.join(CHINESE, "chnsenticorp", "dev.tsv"))
        write_documents(paths["domain_eval"], documents)
    return paths


# The start: the pretraining_wikitext2.md model (4 layers, H = E = 128), no dropout.
START_CONFIG = dict(
    vocab_size=8000,
    embedding_size=128,
    hidden_size=128,
    num_hidden_layers=4,
    num_attention_heads=2,
    intermediate_size=512,
    max_position_embeddings=128,
    hidden_dropout_prob=0.0,
    attention_probs_dropout_prob=0.0,
)
SHAPE = ["--max_seq_length=64", "--max_predictions_per_seq=10"]


class Experiment:
    """The steps, each skipped when its output exists (see the module docstring)."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.workdir = os.path.abspath(args.workdir)
        self.logs = os.path.join(self.workdir, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.text = prepare_text(self.workdir)
        self.old_spm = os.path.join(self.workdir, "spm8k.model")
        self.new_spm = os.path.join(self.workdir, f"spm8k_zh{args.new_pieces}.model")

    def path(self, *parts: str) -> str:
        return os.path.join(self.workdir, *parts)

    def log(self, name: str) -> str:
        return os.path.join(self.logs, f"{name}.log")

    def tokenizers(self) -> dict:
        """The general model and its extension; returns the extension's report."""
        if not os.path.exists(self.old_spm):
            run(
                "tokenizer",
                f"--input_files={self.text['general_train']}",
                f"--model_prefix={self.old_spm[: -len('.model')]}",
                "--vocab_size=8000",
                log=self.log("tokenizer"),
            )
        prefix = self.new_spm[: -len(".model")]
        if not os.path.exists(self.new_spm):
            run(
                "tokenizer",
                f"--extend={self.old_spm}",
                f"--input_files={self.text['domain_train']}",
                f"--new_pieces={self.args.new_pieces}",
                f"--general_files={self.text['general_eval']}",
                f"--model_prefix={prefix}",
                log=self.log("extend"),
            )
        with open(prefix + ".extension.json", encoding="utf-8") as handle:
            return json.load(handle)

    def records(self, text: str, vocabulary: str, dupe_factor: int) -> str:
        """Records of `text` ("general_train", ...) with the `vocabulary` ("old"/"new")."""
        name = f"{text}_{vocabulary}"
        output = self.path("records", name)
        if not os.path.exists(os.path.join(output, "manifest.json")):
            spm_file = self.old_spm if vocabulary == "old" else self.new_spm
            run(
                "data",
                f"--input_file={self.text[text]}",
                f"--output_dir={output}",
                f"--spm_model_file={spm_file}",
                *SHAPE,
                f"--dupe_factor={dupe_factor}",
                # Chinese has no spaces: a "word" would be a whole clause; mask pieces.
                f"--do_whole_word_mask={str(text.startswith('general')).lower()}",
                "--parallelism=2",
                log=self.log(f"data_{name}"),
            )
        return os.path.join(output, "*.tfrecord")

    def pretrain(self, name: str, *flags: str) -> str:
        """A pretraining run into `runs/<name>` (skipped when finished); returns its workdir."""
        output = self.path("runs", name)
        if not os.path.exists(os.path.join(output, "eval_results.json")):
            run(
                "pretrain",
                f"--output_dir={output}",
                *SHAPE,
                "--train_batch_size=64",
                "--eval_batch_size=64",
                "--do_eval",
                "--max_eval_steps=200",
                "--jit_compile",
                *flags,
                log=self.log(f"pretrain_{name}"),
            )
        return output

    def classify(self, name: str, seed: int, *flags: str) -> float:
        """ChnSentiCorp dev accuracy of a fine-tuning run (skipped when finished)."""
        output = self.path("classify", f"{name}_seed{seed}")
        results = os.path.join(output, "eval_results.json")
        if not os.path.exists(results):
            run(
                "classify",
                "--task=tsv",
                f"--data_dir={os.path.join(CHINESE, 'chnsenticorp')}",
                "--text_a_column=text_a",
                "--label_column=label",
                "--max_seq_length=64",
                "--train_batch_size=32",
                "--learning_rate=1e-3",
                f"--num_train_epochs={self.args.epochs}",
                f"--seed={seed}",
                "--do_train",
                "--do_eval",
                f"--output_dir={output}",
                *flags,
                log=self.log(f"classify_{name}_seed{seed}"),
            )
        with open(results, encoding="utf-8") as handle:
            return json.load(handle)["dev/accuracy"]


def unknown_target_share(pattern: str, unk_id: int = 1) -> float:
    """The share of masked-LM targets that are `<unk>` in the records of `pattern`."""
    import glob

    import numpy as np
    import tensorflow as tf

    spec = {
        "masked_lm_ids": tf.io.FixedLenFeature([10], tf.int64),
        "masked_lm_weights": tf.io.FixedLenFeature([10], tf.float32),
    }
    unknown = total = 0.0
    for batch in tf.data.TFRecordDataset(sorted(glob.glob(pattern))).batch(1024):
        parsed = tf.io.parse_example(batch, spec)
        weights = parsed["masked_lm_weights"].numpy()
        unknown += float(np.sum(weights * (parsed["masked_lm_ids"].numpy() == unk_id)))
        total += float(np.sum(weights))
    return unknown / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--new_pieces", type=int, default=6000)
    parser.add_argument("--start_steps", type=int, default=3000)
    parser.add_argument("--adapt_steps", type=int, default=1500)
    parser.add_argument("--adapt_learning_rate", type=float, default=5e-3)
    parser.add_argument("--new_rows_only_steps", type=int, default=300)
    parser.add_argument("--general_mix_ratio", type=float, default=0.2)
    parser.add_argument("--epochs", type=float, default=2.0)
    parser.add_argument("--seeds", default="1,2,3")
    args = parser.parse_args()
    experiment = Experiment(args)
    report = experiment.tokenizers()
    general_train = experiment.records("general_train", "old", dupe_factor=5)
    general_eval = experiment.records("general_eval", "old", dupe_factor=1)
    domain = {
        vocabulary: (
            experiment.records("domain_train", vocabulary, dupe_factor=3),
            experiment.records("domain_eval", vocabulary, dupe_factor=1),
        )
        for vocabulary in ("old", "new")
    }
    config = experiment.path("albert_config.json")
    with open(config, "w", encoding="utf-8") as handle:
        json.dump(START_CONFIG, handle, indent=2)

    # The start: WikiText-2 only.
    start = experiment.pretrain(
        "start",
        f"--input_file={general_train}",
        f"--eval_file={general_eval}",
        f"--albert_config_file={config}",
        "--learning_rate=1e-2",
        f"--num_train_steps={args.start_steps}",
        "--num_warmup_steps=250",
        f"--save_checkpoints_steps={args.start_steps // 4}",
    )
    grown = experiment.path("runs", "grown")
    if not os.path.exists(grown):
        run(
            "convert",
            "--from=albert_tf",
            f"--input={start}",
            "--to=albert_tf",
            f"--output={grown}",
            f"--grow_vocabulary={experiment.new_spm}",
            f"--spm_model_file={experiment.old_spm}",
            log=experiment.log("grow"),
        )
    grown_config = os.path.join(grown, "albert_config.json")
    start_config = os.path.join(start, "albert_config.json")

    def evaluate(name: str, init: str, albert_config: str, vocabulary: str) -> str:
        """Domain and general MLM of `init`, no training (`--nodo_train`)."""
        return experiment.pretrain(
            name,
            "--nodo_train",
            f"--init_checkpoint={init}",
            f"--albert_config_file={albert_config}",
            f"--eval_file={domain[vocabulary][1]}",
            f"--general_eval_file={general_eval}",
        )

    adaptation = [
        f"--learning_rate={args.adapt_learning_rate}",
        f"--num_train_steps={args.adapt_steps}",
        "--num_warmup_steps=200",
        f"--save_checkpoints_steps={args.adapt_steps // 4}",
        f"--general_eval_file={general_eval}",
    ]
    general_mix = [
        f"--general_input_file={general_train}",
        f"--general_mix_ratio={args.general_mix_ratio}",
    ]
    mix_share = f"{args.general_mix_ratio:.0%}"
    runs = {
        "start": (evaluate("start_eval", start, start_config, "old"), "old"),
        "start, grown": (evaluate("grown_eval", grown, grown_config, "new"), "new"),
        "adapted, old vocabulary": (
            experiment.pretrain(
                "adapted_old",
                f"--init_checkpoint={start}",
                f"--albert_config_file={start_config}",
                f"--input_file={domain['old'][0]}",
                f"--eval_file={domain['old'][1]}",
                *adaptation,
            ),
            "old",
        ),
        "adapted, extended": (
            experiment.pretrain(
                "adapted_new",
                f"--init_checkpoint={grown}",
                f"--albert_config_file={grown_config}",
                f"--input_file={domain['new'][0]}",
                f"--eval_file={domain['new'][1]}",
                *adaptation,
            ),
            "new",
        ),
        f"adapted, extended, new rows first, {mix_share} general": (
            experiment.pretrain(
                "adapted_new_mixed",
                f"--init_checkpoint={grown}",
                f"--albert_config_file={grown_config}",
                f"--input_file={domain['new'][0]}",
                f"--eval_file={domain['new'][1]}",
                f"--new_rows_from={START_CONFIG['vocab_size']}",
                f"--new_rows_only_steps={args.new_rows_only_steps}",
                *general_mix,
                *adaptation,
            ),
            "new",
        ),
    }
    seeds = [int(seed) for seed in args.seeds.split(",")]
    rows = []
    for name, (workdir, vocabulary) in runs.items():
        with open(os.path.join(workdir, "eval_results.json"), encoding="utf-8") as handle:
            metrics = json.load(handle)
        spm_file = experiment.old_spm if vocabulary == "old" else experiment.new_spm
        if name == "start, grown":
            init = [f"--init_checkpoint={grown}"]  # an encoder bundle: ships its tokenizer
        elif name == "start":
            init = [f"--init_checkpoint={start}", f"--spm_model_file={spm_file}"]
        else:
            init = [f"--init_checkpoint={workdir}", f"--spm_model_file={spm_file}"]
        tag = os.path.basename(workdir).removesuffix("_eval")
        accuracies = [experiment.classify(tag, seed, *init) for seed in seeds]
        rows.append(
            {
                "model": name,
                "vocabulary": vocabulary,
                "domain_mlm_accuracy": metrics["eval/masked_lm_accuracy"],
                "general_mlm_accuracy": metrics["eval_general/masked_lm_accuracy"],
                "general_mlm_loss": metrics["eval_general/masked_lm_loss"],
                "domain_unknown_targets": unknown_target_share(domain[vocabulary][1]),
                "downstream_accuracy": accuracies,
            }
        )
    random_accuracies = [
        experiment.classify(
            "random_new",
            seed,
            f"--albert_config_file={grown_config}",
            f"--spm_model_file={experiment.new_spm}",
        )
        for seed in seeds
    ]
    results = {"args": vars(args), "tokenization": report, "runs": rows}
    results["random_initialization_downstream_accuracy"] = random_accuracies
    with open(experiment.path("results.json"), "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=2, ensure_ascii=False)
    tables = markdown(results)
    with open(experiment.path("results.md"), "w", encoding="utf-8") as handle:
        handle.write(tables + "\n")
    print(tables)


def _mean_spread(values: list[float]) -> str:
    if len(values) == 1:
        return f"{values[0]:.3f}"
    return f"{statistics.mean(values):.3f} ± {statistics.stdev(values):.3f}"


def markdown(results: dict) -> str:
    """The tables of docs/domain_adaptation.md."""
    report = results["tokenization"]
    lines = [
        "| text | pieces/word | pieces/character | `<unk>` share | words unchanged |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name in ("domain", "general"):
        values = report[name]
        cells = [
            f"{values[key]['before']:.3f} → {values[key]['after']:.3f}"
            for key in ("pieces_per_word", "pieces_per_character", "unknown_share")
        ]
        lines.append(f"| {name} | {' | '.join(cells)} | {values['words_unchanged']:.1%} |")
    lines += [
        "",
        "| model | vocabulary | domain MLM acc. (`<unk>` targets) | general MLM acc. (loss) | "
        "ChnSentiCorp dev acc. |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in results["runs"]:
        vocabulary = "8k" if row["vocabulary"] == "old" else "8k + extension"
        lines.append(
            f"| {row['model']} | {vocabulary} | {row['domain_mlm_accuracy']:.3f} "
            f"({row['domain_unknown_targets']:.0%}) | {row['general_mlm_accuracy']:.3f} "
            f"({row['general_mlm_loss']:.2f}) | "
            f"{_mean_spread(row['downstream_accuracy'])} |"
        )
    lines.append(
        "| random initialization | 8k + extension | - | - | "
        f"{_mean_spread(results['random_initialization_downstream_accuracy'])} |"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
