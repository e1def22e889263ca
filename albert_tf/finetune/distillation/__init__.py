"""Distilling a finished fine-tuning run into a smaller one of the same family: the student
(`students`) and the run's teacher, checks and Keras `Distiller` (`distillation`)."""
