#!/usr/bin/env bash
# The accelerator figures of issue 20, on a lent GPU machine (PyTorch + JAX, no TensorFlow):
# albert_tf's and keras-hub's XLA training steps (exported here by export_step_hlo.py into
# .steps/, carried) through jaxlib's XLA, then Hugging Face PyTorch on the same settings.
# Usage there: bash benchmarks/run_gpu_steps.sh [results dir]
# Settings: STEPS_DIR (default .steps), HF_COMPILE (tags to torch.compile), HF_FLAGS (e.g.
# --skip_eager), PROFILE (tags to trace), DUMP_HLO=1 (pack the optimized HLO and the traces
# into the results dir, for trace_kernels.py), the time limits below.
set -u
out=${1:-${OUT:-/tmp}}
steps=$(realpath "${STEPS_DIR:-.steps}")
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_MEM_FRACTION=0.9
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,power.limit,driver_version --format=csv
python3 -c "import tensorflow" 2>&1 | tail -1
cd "$(dirname "$0")"
dump=${DUMP_HLO:+--xla_dump_to=/tmp/xla_dump --xla_dump_hlo_as_text}
XLA_FLAGS="${XLA_FLAGS:-} $dump" timeout "${HLO_SECONDS:-330}" python3 run_step_hlo.py --steps_dir="$steps" \
  --compile_seconds="${COMPILE_SECONDS:-200}" --compile_workers="${COMPILE_WORKERS:-4}" \
  --profile="${PROFILE:-}" --profile_dir="$out/profile" --results="$out/hlo_steps.json" 2>&1 \
  | grep -v -E '^(W|I)[0-9]{4} ' | tee "$out/hlo_steps.log"
if [ -n "${DUMP_HLO:-}" ]; then  # Each module's optimized HLO and each trace, as few files.
  (cd /tmp/xla_dump && tar czf "$out/optimized_hlo.tgz" ./*after_optimizations.txt)
  for trace in $(find "$out/profile" -name '*.trace.json.gz'); do
    tag=${trace#"$out/profile/"}; cp "$trace" "$out/${tag%%/*}.trace.json.gz"; done
  rm -rf "$out/profile"
fi
timeout "${HF_SECONDS:-170}" python3 run_hf_steps.py --steps_dir="$steps" ${HF_FLAGS:-} \
  --compile="${HF_COMPILE:-albert_tf-finetuning-albert_base-128,albert_tf-pretraining-albert_base-128}" \
  --results="$out/hf_steps.json" 2>&1 | grep -v -E 'Warning|warn' | tee "$out/hf_steps.log"
