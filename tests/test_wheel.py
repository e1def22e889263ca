"""The built wheel, installed into a fresh venv outside the checkout, runs `albert-tf`.

No network and no second TensorFlow: the wheel is built with this environment's setuptools
(`--no-build-isolation`) and installed without its dependencies into a new venv whose `.pth`
file puts this environment's site-packages after its own. That path line adds the installed
libraries only (the `.pth` files there, such as an editable install of the checkout, are not
run), so `albert_tf` can only come from the wheel; the commands run with no PYTHONPATH and
from a directory outside the checkout.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import venv

import pytest

from albert_tf.commands import COMMANDS
from tests.conftest import REPO_ROOT

# Builds and installs a wheel, then runs the quick start from it (~60 s on 2 cores).
pytestmark = pytest.mark.slow

# What the build reads: the package (its sample corpus links to data/sample.txt) and metadata.
_SOURCES = ("setup.cfg", "pyproject.toml", "README.md", "data", "albert_tf")


def _run(argv: list[str], cwd: pathlib.Path, timeout: int = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    result = subprocess.run(
        argv, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout, check=False
    )
    assert result.returncode == 0, f"{argv}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def _build_wheel(root: pathlib.Path) -> pathlib.Path:
    """The wheel of a copy of the checkout's build inputs (the build writes beside them)."""
    source = root / "source"
    source.mkdir()
    for name in _SOURCES:
        if (REPO_ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(REPO_ROOT / name, source / name, symlinks=True, ignore=ignore)
        else:
            shutil.copy2(REPO_ROOT / name, source / name)
    build = ["wheel", "--no-deps", "--no-build-isolation", "-q", "-w", "dist", str(source)]
    _run([sys.executable, "-m", "pip", *build], root)
    (wheel,) = (root / "dist").glob("albert_tf-*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> pathlib.Path:
    """A fresh venv (outside the checkout) with the wheel installed; returns its bin/."""
    root = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(root)
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = _run([str(python), "-c", purelib], root)
    host = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (pathlib.Path(site.stdout.strip()) / "host_site_packages.pth").write_text("\n".join(host))
    install = ["install", "-q", "--no-deps", "--no-index", "--ignore-installed", str(wheel)]
    _run([sys.executable, "-m", "pip", "--python", str(python), *install], root)
    return env_dir / "bin"


def test_the_installed_package_is_the_wheels(installed, tmp_path):
    code = "import albert_tf; print(albert_tf.__file__)"
    location = _run([str(installed / "python"), "-c", code], tmp_path).stdout.strip()
    assert location.startswith(str(installed.parent)), location
    assert not location.startswith(str(REPO_ROOT)), location


def test_albert_tf_help_lists_the_commands(installed, tmp_path):
    result = _run([str(installed / "albert-tf"), "--help"], tmp_path)
    print(result.stdout)
    assert result.stdout.startswith("usage: albert-tf COMMAND [flags]")
    assert all(f"\n  {command} " in result.stdout for command in COMMANDS)


def test_quickstart_runs_on_the_embedded_sample(installed, tmp_path):
    workdir = tmp_path / "quickstart"
    tiny = [
        f"--workdir={workdir}",
        "--num_train_steps=3",
        "--train_batch_size=8",
        "--vocab_size=500",
        "--dupe_factor=1",
        "--max_seq_length=32",
        "--max_predictions_per_seq=5",
    ]
    result = _run([str(installed / "albert-tf"), "quickstart", *tiny], tmp_path, timeout=600)
    print(result.stdout)
    corpus = next(line for line in result.stdout.splitlines() if line.startswith("Corpus: "))
    # The sample corpus is the wheel's package data, not the checkout's data/sample.txt.
    assert corpus.startswith(f"Corpus: {installed.parent}") and "commands/sample.txt" in corpus
    assert "fill_mask 'The game was [MASK] in Japan.'" in result.stdout
    assert (workdir / "export" / "saved_model.pb").is_file()
