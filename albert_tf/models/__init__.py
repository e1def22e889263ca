"""ALBERT models in Keras 3: encoder with cross-layer sharing, heads, pretrainer, task models."""

from albert_tf.models.attention import AlbertAttention
from albert_tf.models.chains import Chains, get_activation, use_chains
from albert_tf.models.classifier import AlbertClassifier
from albert_tf.models.embeddings import AlbertEmbeddings
from albert_tf.models.encoder import AlbertEncoder
from albert_tf.models.feed_forward import AlbertFeedForward
from albert_tf.models.masked_lm_head import AlbertMaskedLMHead
from albert_tf.models.multiple_choice import AlbertMultipleChoice
from albert_tf.models.pretrainer import AlbertPretrainer
from albert_tf.models.pretraining_loss import pretraining_loss_and_metrics, pretraining_terms
from albert_tf.models.sentence_order_head import AlbertSentenceOrderHead
from albert_tf.models.span_qa import AlbertSpanQA, span_loss
from albert_tf.models.token_classifier import AlbertTokenClassifier
from albert_tf.models.transformer_block import AlbertTransformerBlock
from albert_tf.models.vocabulary_rows import grow_vocabulary, vocabulary_weights

__all__ = [
    "AlbertAttention",
    "AlbertClassifier",
    "AlbertEmbeddings",
    "AlbertEncoder",
    "AlbertFeedForward",
    "AlbertMaskedLMHead",
    "AlbertMultipleChoice",
    "AlbertPretrainer",
    "AlbertSentenceOrderHead",
    "AlbertSpanQA",
    "AlbertTokenClassifier",
    "AlbertTransformerBlock",
    "Chains",
    "get_activation",
    "grow_vocabulary",
    "pretraining_loss_and_metrics",
    "pretraining_terms",
    "span_loss",
    "use_chains",
    "vocabulary_weights",
]
