"""expand_file_patterns: order, comma-separated lists, errors naming the pattern."""

from __future__ import annotations

import pytest

from albert_tf.file_patterns import expand_file_patterns


@pytest.fixture()
def files(tmp_path):
    for name in ("b2.txt", "b1.txt", "a.txt"):
        (tmp_path / name).write_text(name, encoding="utf-8")
    return tmp_path


def test_patterns_keep_their_order_and_matches_are_sorted(files):
    expected = [str(files / name) for name in ("b1.txt", "b2.txt", "a.txt")]
    assert expand_file_patterns(f"{files}/b*.txt, {files}/a.txt,") == expected
    assert expand_file_patterns([f"{files}/b*.txt", f"{files}/a.txt"]) == expected


def test_a_file_matched_twice_is_listed_twice(files):
    assert expand_file_patterns(f"{files}/a.txt,{files}/a*.txt") == [str(files / "a.txt")] * 2


def test_custom_glob_function_is_used():
    assert expand_file_patterns("x,y", glob_fn=lambda pattern: [pattern + "!"]) == ["x!", "y!"]


def test_a_pattern_matching_nothing_is_named(files):
    with pytest.raises(FileNotFoundError, match=r"'.*/c\*\.txt' matches no file \(cwd /"):
        expand_file_patterns(f"{files}/a.txt,{files}/c*.txt")


def test_error_type_and_message_can_be_chosen(files):
    with pytest.raises(ValueError, match="^No record in 'nothing'$"):
        expand_file_patterns(
            "nothing", error_type=ValueError, no_match_message="No record in {pattern!r}"
        )


@pytest.mark.parametrize("patterns", ["", " , ", [], [""]])
def test_no_pattern_at_all_is_an_error(patterns):
    with pytest.raises(FileNotFoundError, match="No input file given"):
        expand_file_patterns(patterns)


def test_build_manifests_are_recognized_by_name():
    from albert_tf.file_patterns import is_build_manifest, without_build_manifests

    assert is_build_manifest("out/manifest.json") and is_build_manifest(
        "o/x.tfrecord.manifest.json"
    )
    assert not is_build_manifest("out/part-0.tfrecord") and not is_build_manifest("my.json")
    assert without_build_manifests(["a.tfrecord", "manifest.json"]) == ["a.tfrecord"]
