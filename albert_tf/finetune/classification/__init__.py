"""Sentence (pair) classification and regression: GLUE tasks and generic TSV/CSV files.

`run.run_classifier(ClassificationConfig, output_dir)` does a whole run; the pieces are
`tasks` (what a task reads and is scored on), `examples` (reading files), `metrics`,
`classifier.AlbertClassifier`, `datasets.make_dataset` and `serving.export_classifier`.
"""
