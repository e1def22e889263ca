"""ALBERT tokenization: normalization, SentencePiece training and the tokenizer.

Python-side imports only; the in-graph layer (`AlbertTextTokenizer`, needs TensorFlow) lives in
`albert_tf.tokenization.text_tokenizer_layer`.
"""

from albert_tf.tokenization.model_proto import ALBERT_ID_LAYOUT, load_albert_model_proto
from albert_tf.tokenization.normalize import normalize_text, normalize_text_tf
from albert_tf.tokenization.tokenizer import AlbertTokenizer
from albert_tf.tokenization.train import train_sentencepiece
from albert_tf.tokenization.vocabulary_extension import extend_sentencepiece

__all__ = [
    "ALBERT_ID_LAYOUT",
    "AlbertTokenizer",
    "extend_sentencepiece",
    "load_albert_model_proto",
    "normalize_text",
    "normalize_text_tf",
    "train_sentencepiece",
]
