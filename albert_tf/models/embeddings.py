"""`AlbertEmbeddings`: factorized word + position + token-type embeddings."""

from __future__ import annotations

import keras
from keras import ops

from albert_tf.layer_config import ArgumentsConfig, store_arguments
from albert_tf.models.sub_layers import dense, layer_norm, truncated_normal


@keras.saving.register_keras_serializable(package="albert_tf")
class AlbertEmbeddings(ArgumentsConfig, keras.layers.Layer):
    """Sums word, position and token-type embeddings of size E, then projects E -> H.

    The sum is layer-normalized and dropped out as in BERT; ALBERT's factorization
    adds the dense `projection` (the original `embedding_hidden_mapping_in`) when
    `embedding_size != hidden_size`, else `projection` is None (the original layout);
    `use_projection=True` keeps it even when E == H (Hugging Face's layout).

    Variables (kernels are [in, out]):
      * `word_embeddings.embeddings` [vocab_size, E] (tied to the MLM head),
      * `position_embeddings.embeddings` [max_position_embeddings, E],
      * `token_type_embeddings.embeddings` [type_vocab_size, E],
      * `layer_norm.gamma`, `layer_norm.beta` [E],
      * `projection.kernel` [E, H], `projection.bias` [H] (when E != H or `use_projection`).

    `project=False` returns the E-wide sum before `projection` (for a first block that takes
    the projection into its own matmuls).

    Example:
    >>> layer = AlbertEmbeddings(vocab_size=100, embedding_size=8, hidden_size=16)
    >>> ids = keras.ops.ones((2, 5), "int32")
    >>> tuple(layer(ids, keras.ops.zeros_like(ids)).shape)
    (2, 5, 16)
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_size: int,
        hidden_size: int,
        max_position_embeddings: int = 512,
        type_vocab_size: int = 2,
        dropout_rate: float = 0.0,
        initializer_range: float = 0.02,
        use_projection: bool | None = None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        store_arguments(self, locals())
        # None: the original rule, a projection exactly when E != H.
        self.use_projection = (
            embedding_size != hidden_size if use_projection is None else use_projection
        )

        dtype = self.dtype_policy

        def table(rows: int, name: str) -> keras.layers.Embedding:
            return keras.layers.Embedding(
                rows,
                embedding_size,
                embeddings_initializer=truncated_normal(initializer_range),
                dtype=dtype,
                name=name,
            )

        self.word_embeddings = table(vocab_size, "word_embeddings")
        self.position_embeddings = table(max_position_embeddings, "position_embeddings")
        self.token_type_embeddings = table(type_vocab_size, "token_type_embeddings")
        self.layer_norm = layer_norm(dtype)
        self.dropout = keras.layers.Dropout(dropout_rate, dtype=dtype, name="dropout")
        self.projection = None
        if self.use_projection:
            self.projection = dense(
                hidden_size, initializer_range, dtype, "embedding_hidden_mapping_in"
            )

    def build(self, input_word_ids_shape, input_type_ids_shape=None):
        for table in (self.word_embeddings, self.position_embeddings, self.token_type_embeddings):
            table.build((None,))
        self.layer_norm.build((None, None, self.embedding_size))
        if self.projection is not None:
            self.projection.build((None, None, self.embedding_size))
        self.built = True

    def call(self, input_word_ids, input_type_ids=None, training=None, project=True):
        seq_length = input_word_ids.shape[1]
        if seq_length is not None and seq_length > self.max_position_embeddings:
            raise ValueError(
                f"AlbertEmbeddings: sequence length {seq_length} exceeds "
                f"max_position_embeddings={self.max_position_embeddings}; "
                "truncate the inputs or use a config with more positions."
            )
        if input_type_ids is None:
            input_type_ids = ops.zeros_like(input_word_ids)
        positions = ops.arange(ops.shape(input_word_ids)[1], dtype="int32")
        x = self.word_embeddings(input_word_ids)
        x = x + self.token_type_embeddings(input_type_ids)
        x = x + ops.expand_dims(self.position_embeddings(positions), 0)
        x = self.layer_norm(x)
        x = self.dropout(x, training=training)
        if project and self.projection is not None:
            x = self.projection(x)
        return x

    def compute_output_shape(self, input_word_ids_shape, input_type_ids_shape=None):
        return (*input_word_ids_shape, self.hidden_size)
