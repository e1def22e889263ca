"""The export formats' table: one entry per format, each reading options that are flags."""

from __future__ import annotations

import dataclasses

import pytest

from albert_tf.errors import UserError
from albert_tf.export_formats import FORMATS, ExportOptions, format_help, format_named


def test_every_entry_has_a_unique_name_a_line_and_options_that_are_flags():
    names = [entry.name for entry in FORMATS]
    assert len(set(names)) == len(names)
    fields = {field.name for field in dataclasses.fields(ExportOptions)}
    for entry in FORMATS:
        assert entry.description and "\n" not in entry.description, entry.name
        assert set(entry.options) <= fields, entry.name
        assert f"{entry.name}: {entry.description}" in format_help()
    # Every option is some format's: no flag that nothing reads.
    assert {option for entry in FORMATS for option in entry.options} == fields


def test_an_unknown_format_names_the_choices():
    with pytest.raises(UserError, match="use one of"):
        format_named("tflite")
