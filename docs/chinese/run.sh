#!/usr/bin/env bash
# The Chinese run of docs/chinese.md, end to end on CPU (run from the repository root):
#
#   bash docs/chinese/run.sh [WORK_DIR] [DATA_DIR]
#
# text -> tokenizer -> records with and without jieba (data-stats) -> the chinese_masking
# experiment (a small ALBERT pretrained with character masking and with whole-word masking on
# jieba's words) -> fine-tuning ChnSentiCorp sentiment and People's Daily NER from each
# encoder and from random weights, SEEDS times -> WORK_DIR/results.md. Rerunning skips what is
# done. PRETRAIN_SEEDS repeats the pretraining too (one experiment directory per seed).
set -euo pipefail
WORK=${1:-runs/chinese}
DATA=${2:-../shared/data/chinese}
SEEDS=${SEEDS:-"1 2 3"}
PRETRAIN_SEEDS=${PRETRAIN_SEEDS:-"12345"}
PYTHON=${PYTHON:-python}
albert() { "$PYTHON" -m albert_tf.commands "$@"; }  # = albert-tf
mkdir -p "$WORK"
SPM=$WORK/zh8k.model

"$PYTHON" docs/chinese/prepare_text.py "$DATA" "$WORK/text"
[ -f "$SPM" ] || albert tokenizer --input_files="$WORK/text/train.txt" \
  --model_prefix="$WORK/zh8k" --vocab_size=8000 --character_coverage=0.9995

# Records at length 128 with 20 predictions, without and with jieba (data-stats of each).
for segmenter in none jieba; do
  records=$WORK/records128_$segmenter
  [ -f "$records/manifest.json" ] || albert data --input_file="$WORK/text/train.txt" \
    --spm_model_file="$SPM" --output_dir="$records" --max_seq_length=128 --dupe_factor=1 \
    --word_segmenter=$segmenter --parallelism=2
  albert data-stats --input_file="$records/part-*" --spm_model_file="$SPM" --show_records=4 \
    > "$WORK/data_stats_128_$segmenter.txt"
done

for pretrain_seed in $PRETRAIN_SEEDS; do
  experiment=$WORK/experiment_$pretrain_seed
  albert experiment --preset=chinese_masking --input_file="$WORK/text/train.txt" \
    --eval_file="$WORK/text/eval.txt" --spm_model_file="$SPM" --output_dir="$experiment" \
    --seed="$pretrain_seed" --parallelism=2
  inits="char wwm"
  [ "$pretrain_seed" = "${PRETRAIN_SEEDS%% *}" ] && inits="random char wwm"
  for seed in $SEEDS; do  # every encoder at a seed before the next seed
    export_model=()  # SavedModels of the first seed's runs (docs/chinese.md serves them)
    [ "$seed" = "${SEEDS%% *}" ] && export_model=(--export_saved_model)
    for init in $inits; do
      if [ "$init" = random ]; then
        encoder=(--albert_config_file="$experiment/cells/char/albert_config.json")
      else
        encoder=(--init_checkpoint="$experiment/cells/$init/pretrain")
      fi
      out=$WORK/finetune/$pretrain_seed/$init/chnsenticorp_$seed
      [ -f "$out/eval_results.json" ] || albert classify "${encoder[@]}" \
        --spm_model_file="$SPM" --task=tsv --data_dir="$DATA/chnsenticorp" \
        --text_a_column=text_a --label_column=label --max_seq_length=64 \
        --learning_rate=3e-4 --num_train_epochs=3 --seed="$seed" --do_train --do_eval \
        "${export_model[@]}" --output_dir="$out"
      out=$WORK/finetune/$pretrain_seed/$init/peopledaily_$seed
      [ -f "$out/eval_results.json" ] || albert tag "${encoder[@]}" \
        --spm_model_file="$SPM" --data_dir="$DATA/peopledaily_ner" --character_level \
        --max_train_examples=8000 --max_seq_length=64 --learning_rate=3e-4 \
        --num_train_epochs=2 --seed="$seed" --do_train --do_eval "${export_model[@]}" \
        --output_dir="$out"
    done
  done
done
"$PYTHON" docs/chinese/summarize.py "$WORK" | tee "$WORK/results.md"
