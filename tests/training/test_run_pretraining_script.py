"""scripts/run_pretraining.py: flags mirror PretrainConfig; bad flags are one error line."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap

from albert_tf.training.pretrain_config import PretrainConfig
from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "run_pretraining.py"

# Imports the script as a module, parses argv[1:] and prints every flag's default and
# the config the flags describe.
_CHILD = textwrap.dedent(
    """
    import dataclasses, importlib.util, json, sys
    from absl import flags
    from albert_tf.config_flags import config_from_flags
    from albert_tf.training.pretrain_config import PretrainConfig
    spec = importlib.util.spec_from_file_location("run_pretraining", sys.argv[1])
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    flags.FLAGS(["run_pretraining", *sys.argv[2:]])
    print(json.dumps({
        "defaults": {name: flags.FLAGS[name].default for name in flags.FLAGS},
        "config": dataclasses.asdict(config_from_flags(PretrainConfig)),
    }))
    """
)


def _python(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO_ROOT)),
        timeout=120,
    )


def test_every_config_field_is_a_flag_with_the_fields_default():
    args = ["--input_file=r/*.tfrecord", "--albert_config_file=albert_base", "--output_dir=o"]
    result = _python("-c", _CHILD, str(SCRIPT), *args)
    assert result.returncode == 0, result.stderr[-3000:]
    output = json.loads(result.stdout.strip().splitlines()[-1])
    for field in dataclasses.fields(PretrainConfig):
        assert output["defaults"][field.name] == field.default, field.name
    expected = PretrainConfig(input_file="r/*.tfrecord", albert_config_file="albert_base")
    assert output["config"] == json.loads(json.dumps(dataclasses.asdict(expected)))


def test_a_missing_config_is_one_error_line():
    result = _python(str(SCRIPT), "--input_file=r/*.tfrecord", "--output_dir=o")
    assert result.returncode == 2, result.stderr[-3000:]
    assert (
        result.stderr.strip().splitlines()[-1].startswith("error: albert_config_file is required")
    )
