"""Models for the masking tests of ``test_masking_fidelity.py``, built by the same code with tfunc's
``keras`` or Keras 3.15's (tests/keras/fixtures/make_masking_values.py runs them in Keras for the
expected numbers): every layer Keras marks ``supports_masking`` passing a mask on,
``BatchNormalization``'s masked batch statistics, ``MultiHeadAttention`` reading its inputs'
masks, and ``Concatenate`` with some inputs unmasked."""

import numpy as np

IDS = np.array([[1, 2, 0, 0, 3, 0], [3, 0, 0, 0, 0, 0], [4, 4, 2, 1, 1, 2], [5, 5, 1, 0, 0, 0]], dtype="int32")
IDS2 = np.array([[2, 0, 1, 0, 0, 0], [1, 1, 1, 3, 0, 0], [4, 2, 0, 0, 0, 0], [0, 5, 1, 2, 0, 3]], dtype="int32")
FEATS = np.random.RandomState(1).randn(4, 6, 3).astype("float32")
SEQ_LABELS = (IDS % 3).astype("int32")
LABELS = np.random.RandomState(2).randn(4, 2).astype("float32")


def fill(model):
    for i, w in enumerate(model.weights):
        n = int(np.prod(w.shape))
        value = 0.5 * np.sin(0.37 * np.arange(n) + i)
        if "moving_variance" in w.name:  # positive, as a variance
            value = 1.0 + 0.5 * value
        w.assign(value.reshape(tuple(w.shape)).astype("float32"))


def tagger(keras, rate=0.0):
    """Per-step outputs through the mask-passing layers; the final GRU skips the masked steps
    (so its outputs show whether the mask arrived) and the loss is weighted by the mask."""
    layers = keras.layers
    inp = keras.Input((6,), dtype="int32")
    x = layers.Embedding(8, 4, mask_zero=True)(inp)
    x = layers.LSTM(4, return_sequences=True)(x)
    x = layers.Dropout(rate)(x)
    x = layers.SpatialDropout1D(0.0)(x)
    x = layers.GaussianNoise(0.0)(x)
    x = layers.GaussianDropout(0.0)(x)
    x = layers.AlphaDropout(0.0)(x)
    x = layers.ActivityRegularization(l2=0.01)(x)
    x = layers.LayerNormalization()(x)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU(negative_slope=0.1)(x)
    x = layers.TimeDistributed(layers.Dense(4))(x)
    x = layers.ELU()(x)
    x = layers.LeakyReLU()(x)
    x = layers.PReLU()(x)
    x = layers.Activation("tanh")(x)
    x = layers.GroupNormalization(groups=2)(x)
    x = layers.UnitNormalization()(x)
    x = layers.GRU(3, return_sequences=True)(x)
    x = layers.Dense(3)(x)
    model = keras.Model(inp, x)
    fill(model)
    return model


def attention(keras):
    """Self- and cross-attention on padded batches: each MultiHeadAttention reads the Keras masks
    of its query and value (with the causal mask, dropout in inference, the scores returned:
    Keras's two computations), and a residual block keeps the mask for the pooling after it.
    (Each masked tensor feeds one attention layer: Keras's layer removes its inputs' masks while
    its model runs, so that a second one would read them or not depending on Keras's order.)"""
    layers = keras.layers
    a_ids, b_ids = keras.Input((6,), dtype="int32"), keras.Input((6,), dtype="int32")
    embed_a, embed_b = layers.Embedding(8, 4, mask_zero=True), layers.Embedding(8, 4, mask_zero=True)
    a, b = embed_a(a_ids), embed_b(b_ids)
    residual = layers.Add()([a, layers.MultiHeadAttention(2, 3)(a, a)])
    pooled = layers.GlobalAveragePooling1D()(layers.LayerNormalization()(residual))
    causal = layers.MultiHeadAttention(2, 2, value_dim=3)(embed_a(b_ids), b, use_causal_mask=True)
    seq = layers.GRU(2, return_sequences=True)(causal)
    c, d = embed_b(a_ids), embed_a(b_ids)
    dropped = layers.MultiHeadAttention(2, 2, dropout=0.3)(c, d, key=d)
    _, scores = layers.MultiHeadAttention(1, 2)(embed_b(b_ids), embed_a(a_ids), return_attention_scores=True)
    model = keras.Model([a_ids, b_ids], [pooled, seq, dropped, scores])
    fill(model)
    return model


def concat(keras):
    """Concatenate of a masked and an unmasked input (the missing mask counts as all True),
    along the features and along the steps. (Named: a layer named "concatenate" with masked
    inputs clashes, when Keras loads tfunc's archive, with the name Keras gives the
    ``ops.concatenate`` it records for the mask.)"""
    layers = keras.layers
    ids, feats = keras.Input((6,), dtype="int32"), keras.Input((6, 3))
    e = layers.Embedding(8, 3, mask_zero=True)(ids)
    features = layers.Concatenate(name="features")([e, feats])
    steps = layers.Concatenate(axis=1, name="steps")([feats, e])
    x = layers.GRU(2, return_sequences=True)(features)
    y = layers.GRU(2)(steps)
    pooled = layers.GlobalAveragePooling1D()(features)
    model = keras.Model([ids, feats], [x, y, pooled])
    fill(model)
    return model


def regressor(keras):
    """For fit: attention and a concatenation feeding a pooled regression."""
    layers = keras.layers
    ids, feats = keras.Input((6,), dtype="int32"), keras.Input((6, 3))
    e = layers.Embedding(8, 3, mask_zero=True)(ids)
    x = layers.Concatenate()([e, feats])
    x = layers.MultiHeadAttention(2, 2)(x, x)
    x = layers.BatchNormalization()(x)
    x = layers.LSTM(3)(x)
    model = keras.Model([ids, feats], layers.Dense(2)(x))
    fill(model)
    return model


def luong(keras):
    """Dot-product Attention on a masked sequence (Keras records its output mask as a
    ``keras.src.ops.core.ConvertToTensor``), then layers that take the mask."""
    layers = keras.layers
    ids = keras.Input((6,), dtype="int32")
    e = layers.Embedding(8, 4, mask_zero=True)(ids)
    x = layers.Attention()([e, e])
    x = layers.TimeDistributed(layers.Dense(3))(x)
    x = layers.BatchNormalization()(x)
    model = keras.Model(ids, layers.GRU(2)(x))
    fill(model)
    return model
