"""Distilling a finished fine-tuning run into a smaller one of the same family: the student
(`students`) and the run's teacher, checks and Keras `Distiller` (`distillation`)."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "DistillConfig": ".distill_config",
    "Distillation": ".distillation",
    "initialize_from_teacher": ".students",
    "student_config": ".students",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
