"""A peer at the same budget: Hugging Face transformers' ALBERT pretrained on the same text.

What a PyTorch user would run instead of albert_tf: `transformers.AlbertForMaskedLM` trained
the way transformers' masked-LM example (`examples/pytorch/language-modeling/run_mlm.py`) does
it: the text's pieces concatenated and cut into blocks of `--max_seq_length`, 15% of the
pieces masked anew in every batch (`DataCollatorForLanguageModeling`: 80% [MASK], 10% random,
10% kept), AdamW with linear warmup and linear decay to 0. The example's `Trainer` loop is
written out here (it needs `accelerate`, which the bench extra does not install); the update
is the same. Everything else is albert_tf's recipe: the same text, SentencePiece model (the
ids come from albert_tf's tokenizer), `albert_config.json`, batch and sequence length, and a
wall-clock budget (`--budget_seconds`: what albert_tf's pretraining took on the machine).

The decay needs a step count before the budget is spent: the first `--calibration_steps`
(within warmup) time the step, the whole warmup times it again, and the schedule then ends
where the budget will.

Writes `OUTPUT_DIR` (atomically) as a Hugging Face model directory: `config.json`,
`model.safetensors` and the tokenizer files (`spiece.model` among them), which
`albert-tf classify --init_checkpoint=OUTPUT_DIR` fine-tunes like albert_tf's own encoder,
and `peer_pretraining.json` (steps, seconds, held-out masked-LM accuracy). `--init_model=DIR`
continues from such a directory (a second phase on other text, as `albert-tf pretrain
--init_checkpoint` does) with a new warmup and decay. `--evaluate=DIR,...`
scores Hugging Face masked-LM directories instead (albert_tf's own pretraining after
`albert-tf convert --to=hf`) on the same held-out blocks, masked the same way.

Example (docs/finetuning_sst2.md, "Label budgets, and Hugging Face's ALBERT at the same budget"):
    python benchmarks/hf_peer_pretraining.py --train_file=wt2/train.txt \\
        --eval_file=wt2/valid.txt --spm_model_file=wt2/spm8k.model \\
        --albert_config_file=wt2/config.json --budget_seconds=1290 --output_dir=wt2/hf_peer_wt2
    python benchmarks/hf_peer_pretraining.py --train_file=sst2.txt \\
        --eval_file=wt2/valid.txt --spm_model_file=wt2/spm8k.model \\
        --init_model=wt2/hf_peer_wt2 --learning_rate=5e-4 --warmup_steps=100 \\
        --budget_seconds=320 --output_dir=wt2/hf_peer_sst2
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Sequence

import torch
import transformers

from albert_tf.atomic_files import atomic_output_directory
from albert_tf.config import AlbertConfig
from albert_tf.convert.config_conversion import hf_config_dict
from albert_tf.convert.hf_tokenizer import write_hf_tokenizer
from albert_tf.tokenization.tokenizer import AlbertTokenizer


def text_blocks(text_file: str, tokenizer: AlbertTokenizer, length: int) -> torch.Tensor:
    """run_mlm's `group_texts`: every line's pieces, concatenated, cut into [CLS] ... [SEP]
    blocks of `length` (the remainder dropped)."""
    with open(text_file, encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip()]
    ids = [piece for line_ids in tokenizer.encode_batch(lines) for piece in line_ids]
    body = length - 2
    cls, sep = tokenizer.piece_to_id("[CLS]"), tokenizer.piece_to_id("[SEP]")
    blocks = [[cls, *ids[start : start + body], sep] for start in range(0, len(ids) - body, body)]
    return torch.tensor(blocks, dtype=torch.long)


def masked_lm_accuracy(
    model: transformers.AlbertForMaskedLM,
    blocks: torch.Tensor,
    collator: transformers.DataCollatorForLanguageModeling,
    batch_size: int,
) -> float:
    """Share of the masked pieces predicted exactly (one fixed masking of `blocks`)."""
    model.eval()
    torch.manual_seed(0)
    correct = total = 0
    with torch.no_grad():
        for start in range(0, len(blocks), batch_size):
            batch = collator([{"input_ids": row} for row in blocks[start : start + batch_size]])
            logits = model(input_ids=batch["input_ids"]).logits
            masked = batch["labels"] != -100
            correct += int((logits.argmax(-1)[masked] == batch["labels"][masked]).sum())
            total += int(masked.sum())
    model.train()
    return correct / max(total, 1)


def masked_lm_collator(spm_model_file: str) -> transformers.DataCollatorForLanguageModeling:
    """run_mlm's masking: 15% of the pieces (80% [MASK], 10% random, 10% kept)."""
    # The collator needs the special ids only; ALBERT's layout puts them where albert_tf does.
    return transformers.DataCollatorForLanguageModeling(
        transformers.AlbertTokenizer(vocab_file=spm_model_file), mlm_probability=0.15
    )


def held_out_blocks(args: argparse.Namespace) -> torch.Tensor:
    tokenizer = AlbertTokenizer(args.spm_model_file)
    return text_blocks(args.eval_file, tokenizer, args.max_seq_length)[: args.eval_blocks]


def evaluate(args: argparse.Namespace) -> None:
    """Prints the held-out masked-LM accuracy of each `--evaluate` directory."""
    blocks, collator = held_out_blocks(args), masked_lm_collator(args.spm_model_file)
    for directory in args.evaluate.split(","):
        model = transformers.AlbertForMaskedLM.from_pretrained(directory)
        accuracy = masked_lm_accuracy(model, blocks, collator, args.batch_size)
        print(f"{directory}: held-out masked-LM accuracy {accuracy:.3f} ({len(blocks):,} blocks)")


def peer_model(args: argparse.Namespace) -> transformers.AlbertForMaskedLM:
    """`--init_model`'s weights, or a new model of `--albert_config_file`'s shape."""
    if args.init_model:
        return transformers.AlbertForMaskedLM.from_pretrained(args.init_model)
    config = AlbertConfig.from_json_file(args.albert_config_file)
    hf_config = transformers.AlbertConfig(**hf_config_dict(config, "AlbertForMaskedLM"))
    return transformers.AlbertForMaskedLM(hf_config)


def pretrain(args: argparse.Namespace) -> dict:
    """Trains for `args.budget_seconds`; returns the model and the run's figures."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(os.cpu_count() or 1)
    model = peer_model(args)
    collator = masked_lm_collator(args.spm_model_file)
    train = text_blocks(args.train_file, AlbertTokenizer(args.spm_model_file), args.max_seq_length)
    held_out = held_out_blocks(args)
    print(f"{len(train):,} training blocks, {len(held_out):,} held out", flush=True)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay
    )
    total_steps = None  # Known after calibration.

    def learning_rate_factor(step: int) -> float:
        if step < args.warmup_steps:
            return (step + 1) / args.warmup_steps
        end = total_steps or 10**9
        return max(0.0, (end - step) / max(1, end - args.warmup_steps))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, learning_rate_factor)
    order: list[int] = []
    rng = random.Random(args.seed)
    step, start = 0, time.monotonic()
    model.train()
    while total_steps is None or step < total_steps:
        if len(order) < args.batch_size:
            epoch = list(range(len(train)))
            rng.shuffle(epoch)
            order += epoch
        rows, order = order[: args.batch_size], order[args.batch_size :]
        batch = collator([{"input_ids": train[row]} for row in rows])
        loss = model(input_ids=batch["input_ids"], labels=batch["labels"]).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        step += 1
        elapsed = time.monotonic() - start
        # Timed again at the end of warmup, before the decay begins: the first steps are the
        # slowest, so a count from them alone would end the schedule before the budget.
        if step in (args.calibration_steps, args.warmup_steps):
            total_steps = int(step * args.budget_seconds / elapsed)
            print(f"{elapsed / step:.3f} s/step: {total_steps:,} steps in the budget", flush=True)
        if step % args.log_every == 0:
            print(f"step {step:,}, {elapsed:.0f} s, loss {loss.item():.3f}", flush=True)
        if elapsed > args.budget_seconds * 1.05:  # A slower machine later on: stop at the budget.
            break
    seconds = time.monotonic() - start
    accuracy = masked_lm_accuracy(model, held_out, collator, args.batch_size)
    print(f"{step:,} steps in {seconds:.0f} s: held-out masked-LM accuracy {accuracy:.3f}")
    return {
        "model": model,
        "steps": step,
        "seconds": seconds,
        "held_out_masked_lm_accuracy": accuracy,
        "held_out_blocks": len(held_out),
    }


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train_file", help="Text, one sentence or line each.")
    parser.add_argument("--eval_file", required=True, help="Held-out text (same format).")
    parser.add_argument("--spm_model_file", required=True)
    parser.add_argument("--albert_config_file")
    parser.add_argument("--init_model", help="A Hugging Face masked-LM directory to continue.")
    parser.add_argument("--output_dir")
    parser.add_argument("--budget_seconds", type=float)
    parser.add_argument("--evaluate", default="", help="DIR,...: score these, train nothing.")
    parser.add_argument("--max_seq_length", type=int, default=64)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--weight_decay", type=float, default=0.01)
    parser.add_argument("--warmup_steps", type=int, default=250)
    parser.add_argument("--calibration_steps", type=int, default=100)
    parser.add_argument("--eval_blocks", type=int, default=6400)
    parser.add_argument("--log_every", type=int, default=500)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args(argv)
    training = ("train_file", "output_dir", "budget_seconds")
    missing = [name for name in training if getattr(args, name) is None]
    if args.albert_config_file is None and args.init_model is None:
        missing.append("albert_config_file (or --init_model)")
    if args.albert_config_file is not None and args.init_model is not None:
        parser.error("--init_model continues a model of its own shape: drop --albert_config_file")
    if missing and not args.evaluate:
        parser.error("training needs --" + ", --".join(missing) + " (or --evaluate=DIR,...)")
    if args.calibration_steps > args.warmup_steps:
        parser.error("--calibration_steps must be within --warmup_steps (before the decay)")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    if args.evaluate:
        evaluate(args)
        return
    run = pretrain(args)
    model = run.pop("model")
    run.update(vars(args))
    with atomic_output_directory(args.output_dir, overwrite=True) as directory:
        model.save_pretrained(directory)
        write_hf_tokenizer(args.spm_model_file, directory)
        with open(os.path.join(directory, "peer_pretraining.json"), "w", encoding="utf-8") as f:
            json.dump(run, f, indent=2)


if __name__ == "__main__":
    main()
