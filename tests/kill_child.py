"""Child of tests/test_kill_during_writes.py: runs one job, SIGKILLed at a random moment.

    python tests/kill_child.py JOB ARGS_JSON OUTPUT SEED

The job runs once to a scratch output to time it, then again to OUTPUT with a timer that
SIGKILLs the process at a uniformly random moment of that duration. Whether the second run
finished first or not, the process ends by SIGKILL. It prints `{"delay": s, "duration": s}`.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading
import time


def _export(args: dict):
    import keras

    from albert_tf.export.saved_model import export_saved_model
    from albert_tf.models import AlbertPretrainer  # noqa: F401  (registers the class)
    from albert_tf.runtime import Runtime

    model = keras.saving.load_model(args["pretrainer"])
    return lambda output: export_saved_model(
        output, model, args["spm"], seq_length=16, runtime=Runtime.plain()
    )


def _convert(args: dict):
    from albert_tf.convert.convert import convert_checkpoint

    return lambda output: convert_checkpoint("albert_tf", args["pretrainer"], "hf", output)


def _records(args: dict):
    from albert_tf.data.builder import BuilderOptions, build_pretraining_data

    def job(output):
        options = BuilderOptions(output_dir=output, **args["options"])
        build_pretraining_data(options)

    return job


def _finetune(args: dict):
    from albert_tf.finetune.classification.classification_config import ClassificationConfig
    from albert_tf.finetune.classification.classification_task import run_classifier
    from albert_tf.runtime import Runtime

    config = ClassificationConfig(**args["config"])
    return lambda output: run_classifier(config, output, runtime=Runtime.for_machine())


JOBS = {"export": _export, "convert": _convert, "records": _records, "finetune": _finetune}


def main() -> None:
    name, args_json, output, seed = sys.argv[1:5]
    job = JOBS[name](json.loads(args_json))
    start = time.monotonic()
    job(output + "-timing")
    duration = time.monotonic() - start
    delay = random.Random(int(seed)).uniform(0.0, duration)
    print(json.dumps({"delay": delay, "duration": duration}), flush=True)
    threading.Timer(delay, os.kill, (os.getpid(), signal.SIGKILL)).start()
    job(output)
    time.sleep(duration + 60)  # The timer kills the process in every case.


if __name__ == "__main__":
    main()
