"""`configure`: choose this process's speed-only forms once, install them; `describe`, `record`.

Each form (`FORMS`) replaces a piece of the plain reference with a faster equivalent on some
machines. `configure(options)` decides each one, in order: an explicit option, else its
environment variable, else "auto": on a GPU or TPU by what the accelerator is, on a CPU by a
probe that times the fast form against the reference (`probes`; cached per machine by
`probe_cache`), keeping it only where it measured faster. Then it installs the chosen forms
(the model's slots in `albert_tf.models.forms`; the runtime's own functions read `choices`).
Library code that never calls `configure` runs the plain reference.

To add a form: a `RuntimeOptions` field, a probe returning `{case: (fast s, plain s)}`, and a
`Form` here saying how its cases combine and which slots it fills.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator, Mapping

import keras

from albert_tf.atomic_files import atomic_write_text
from albert_tf.models import forms
from albert_tf.runtime import fused_kernels, machine, onednn, probes
from albert_tf.runtime.choices import Case, Choice, current_choices, set_choices
from albert_tf.runtime.options import RuntimeOptions, requested
from albert_tf.runtime.probe_cache import cached_probe

RUNTIME_FILE = "runtime.json"
# Part of every cached probe's key: bump it when a probe measures something else.
PROBE_VERSION = 3

_log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Form:
    """A speed-only form: how "auto" measures it and what installing it changes.

    Attributes:
        name: its `RuntimeOptions` field.
        on_accelerators: "auto"'s answer where TensorFlow sees a GPU or TPU.
        probe: `() -> {case: (fast seconds, plain seconds)}` on this CPU.
        combine: whether the form runs at all, from each case's "fast form faster".
        slots: `choice -> {models.forms slot: form}` to install (for forms the model calls).
        margin: how much faster than the reference a case must be to be kept (`Case.margin`).
    """

    name: str
    on_accelerators: bool
    probe: Callable[[], Mapping[str, tuple[float, float]]]
    combine: Callable[[Iterable[bool]], bool]
    slots: Callable[[Choice], dict[str, Callable]] = lambda choice: {}
    margin: float = 0.0


def _chain_dtype(x) -> str:
    """The probe's dtype case for a chain's input (float16 follows bfloat16: half-width in)."""
    dtype = keras.backend.standardize_dtype(x.dtype)
    return "bfloat16" if dtype == "float16" else dtype


def _fused_slots(choice: Choice) -> dict[str, Callable]:
    """Each chain's slot: the XLA kernel in the dtypes and sizes where it was kept (the probed
    size nearest to the call's), else the reference."""

    def per_case(chain: str) -> Callable:
        fast, plain = fused_kernels.FUSED_CHAINS[chain], getattr(forms, chain).reference

        def form(x, *args, **kwargs):
            size = fused_kernels.probed_size(chain, x)
            kept = choice.keeps(f"{chain}/{_chain_dtype(x)}/{size}")
            return (fast if kept else plain)(x, *args, **kwargs)

        return form

    if not choice.enabled:
        return {}
    return {chain: per_case(chain) for chain in fused_kernels.FUSED_CHAINS}


def _serving_dtypes() -> list[str]:
    """float32, and bfloat16 where the CPU computes in it (where models get served in it)."""
    return ["float32"] + (["bfloat16"] if machine.cpu_flags() & set(machine.BF16_FLAGS) else [])


FORMS = (
    Form(
        "fused_kernels",
        on_accelerators=False,
        probe=lambda: probes.time_fused_chains(),
        combine=any,
        slots=_fused_slots,
    ),
    # After the fused kernels: the variables call it is timed against runs them where chosen.
    Form(
        "frozen_serving",
        on_accelerators=True,
        probe=lambda: probes.time_frozen_serving(_serving_dtypes()),
        combine=all,
    ),
    # Last: it compiles whichever serving form was chosen above, and is timed against it.
    Form(
        "compiled_serving",
        on_accelerators=False,
        probe=lambda: probes.time_compiled_serving(_serving_dtypes()),
        combine=any,
        # Each new input shape costs a compilation the probe's timings leave out.
        margin=0.05,
    ),
)

_restore: dict[str, Callable | None] | None = None  # What `configure` replaced in the slots.
_options: RuntimeOptions | None = None  # What the configuration in force was asked for.


def configure(options: RuntimeOptions | None = None) -> dict[str, Choice]:
    """Chooses and installs this process's forms; returns the choices by form name.

    The first call decides. A later call without `options` keeps what was decided; a later
    call with `options` decides again (e.g. a benchmark comparing forms).

    Example (not run: "auto" may probe this machine for a few seconds):
        configure(RuntimeOptions(frozen_serving="off"))
    """
    if options is None and current_choices():
        return current_choices()
    reset()
    options = options or RuntimeOptions()
    choices: dict[str, Choice] = {}
    global _restore, _options
    _restore, _options = {}, options
    for form in FORMS:
        choice = _decide(form, options, choices)
        choices[form.name] = choice
        set_choices(choices)
        for slot, previous in forms.install(form.slots(choice)).items():
            _restore.setdefault(slot, previous)
        _log.info("albert_tf runtime: %s %s (%s)", form.name, _on_off(choice), choice.reason)
    return dict(choices)


def reset() -> None:
    """Back to the plain reference everywhere (what runs before `configure`)."""
    global _restore, _options
    if _restore is not None:
        forms.install(_restore)
    _restore, _options = None, None
    set_choices({})


@contextlib.contextmanager
def configured(options: RuntimeOptions | None = None) -> Iterator[dict[str, Choice]]:
    """`configure(options)` for the block (tests, benchmarks); what was in force comes back."""
    previous = _options
    try:
        yield configure(options or RuntimeOptions())
    finally:
        if previous is None:
            reset()
        else:
            configure(previous)


def describe() -> dict:
    """What was chosen and why: the machine, then per form its choice, source, reason and
    (where probed) each case's fast and plain milliseconds."""
    choices = current_choices()
    if not choices:
        return {
            "configured": False,
            "reason": "albert_tf.runtime.configure() was not called: the plain reference runs",
            "machine": machine.describe_machine(),
        }
    return {
        "configured": True,
        "machine": machine.describe_machine(),
        "onednn": onednn.CHOICE or "TensorFlow's own setting (not decided by albert_tf.cli)",
        "forms": {name: choice.as_dict() for name, choice in choices.items()},
    }


def record(directory: str) -> str:
    """Writes `describe()` as `runtime.json` into `directory` (a run's files); returns the path."""
    path = os.path.join(directory, RUNTIME_FILE)
    atomic_write_text(path, json.dumps(describe(), indent=2) + "\n")
    return path


def _decide(form: Form, options: RuntimeOptions, earlier: Mapping[str, Choice]) -> Choice:
    setting, source = requested(options, form.name)
    if setting != "auto":
        reason = "set by RuntimeOptions" if source == "option" else "set by the environment"
        return Choice(form.name, setting == "on", source, reason)
    if machine.has_accelerator():
        return Choice(
            form.name, form.on_accelerators, "accelerator", "TensorFlow sees a GPU or TPU"
        )
    return _probed(form, earlier)


def _probed(form: Form, earlier: Mapping[str, Choice]) -> Choice:
    """`form` decided by its probe (cached per machine, the earlier choices and PROBE_VERSION)."""
    measured = []

    def measure() -> dict:
        measured.append(True)
        try:
            return {"seconds": {case: list(pair) for case, pair in form.probe().items()}}
        except Exception as error:  # A probe that cannot run must not stop the job.
            _log.warning("albert_tf runtime: the %s probe failed: %r", form.name, error)
            return {"failed": repr(error)}

    key = [PROBE_VERSION, form.name, {name: _on_off(choice) for name, choice in earlier.items()}]
    result = cached_probe(f"runtime_{form.name}", key, measure, valid=lambda c: "seconds" in c)
    if "seconds" not in result:
        reason = f"its probe failed ({result.get('failed')}): the plain reference"
        return Choice(form.name, False, "probe failed", reason)
    cases = {case: Case(*pair, form.margin) for case, pair in result["seconds"].items()}
    enabled = form.combine(case.kept for case in cases.values())
    source = "probe" if measured else "cached probe"
    return Choice(form.name, enabled, source, _probe_reason(enabled, cases), cases)


def _probe_reason(enabled: bool, cases: Mapping[str, Case]) -> str:
    faster = sorted(name for name, case in cases.items() if case.kept)
    slower = sorted(name for name, case in cases.items() if not case.kept)
    if not slower:
        return "faster than the plain reference in every case probed"
    if not enabled:
        return f"the plain reference was faster in {', '.join(slower)}"
    return f"faster in {', '.join(faster)}; the plain reference kept in {', '.join(slower)}"


def _on_off(choice: Choice) -> str:
    if not choice.cases or not choice.enabled:
        return "on" if choice.enabled else "off"
    return "on in " + ", ".join(sorted(c for c, case in choice.cases.items() if case.kept))
