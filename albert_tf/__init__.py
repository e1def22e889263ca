"""albert_tf: ALBERT pretraining, export and fine-tuning for TensorFlow 2 and Keras 3."""

__version__ = "0.1.0"
