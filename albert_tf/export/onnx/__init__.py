"""ONNX export for ONNX Runtime (fused CPU operators, float32 and int8) and OpenVINO."""

from albert_tf.lazy_exports import lazy_exports

# Public name -> its module, imported on first use: importing the package loads no TensorFlow.
_HOMES = {
    "GraphBuilder": ".graph_builder",
    "OnnxModel": ".runner",
    "encoder_graph": ".encoder_graph",
    "export_onnx": ".export",
    "onnx_model": ".task_graphs",
    "quantize_int8": ".export",
}
__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
