"""`albert-tf pretrain`: flags mirror PretrainConfig (bad flags: test_bad_input_matrix)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import textwrap

import pytest

from albert_tf.training.precision import AUTO_PRECISION_HELP
from albert_tf.training.pretrain_config import PretrainConfig
from tests import commands
from tests.conftest import REPO_ROOT

# Imports the command's module (defining its flags), parses argv[1:] and prints every flag's
# default, the config the flags describe and the --precision help.
_CHILD = textwrap.dedent(
    """
    import dataclasses, importlib, json, sys
    from absl import flags
    from albert_tf.config_flags import config_from_flags
    from albert_tf.training.pretrain_config import PretrainConfig
    importlib.import_module("albert_tf.commands.pretrain")
    flags.FLAGS(["albert-tf pretrain", *sys.argv[1:]])
    print(json.dumps({
        "defaults": {name: flags.FLAGS[name].default for name in flags.FLAGS},
        "config": dataclasses.asdict(config_from_flags(PretrainConfig)),
        "precision_help": flags.FLAGS["precision"].help,
    }))
    """
)


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    return commands.run(argv, env=env, timeout=120, preloaded=True)


@pytest.mark.slow  # A subprocess with TensorFlow.
def test_every_config_field_is_a_flag_with_the_fields_default_and_help():
    args = ["--input_file=r/*.tfrecord", "--albert_config_file=albert_base", "--output_dir=o"]
    result = _run([sys.executable, "-c", _CHILD, *args])
    assert result.returncode == 0, result.stderr[-3000:]
    output = json.loads(result.stdout.strip().splitlines()[-1])
    for field in dataclasses.fields(PretrainConfig):
        assert output["defaults"][field.name] == field.default, field.name
    expected = PretrainConfig(input_file="r/*.tfrecord", albert_config_file="albert_base")
    assert output["config"] == json.loads(json.dumps(dataclasses.asdict(expected)))
    # The help says what `auto` does in precision.py's own words.
    assert AUTO_PRECISION_HELP in output["precision_help"]
