"""ONNX export for ONNX Runtime (fused CPU operators, float32 and int8) and OpenVINO."""

from albert_tf.lazy_exports import lazy_exports

__all__ = [
    "GraphBuilder",
    "OnnxModel",
    "encoder_graph",
    "export_onnx",
    "onnx_model",
    "quantize_int8",
]
# Imported on first use (see albert_tf/lazy_exports.py).
__getattr__, __dir__ = lazy_exports(__name__, __all__)
