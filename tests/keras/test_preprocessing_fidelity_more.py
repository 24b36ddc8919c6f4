"""Keras 3.15's preprocessing layers, checked against values TensorFlow 2.21 / Keras 3.15 gave:
seeded augmentation layers draw from a ``SeedGenerator`` in Keras's order (same values, new
draws at every call, also in ``Dataset.map``), and integer images keep their dtype where
Keras's layers keep it."""

import numpy as np
import pytest

import tfunc as tf

L = tf.keras.layers
IMGS = np.arange(2 * 4 * 5 * 3, dtype="float32").reshape(2, 4, 5, 3)

# (layer, how to pick from the output, TF 2.21 / Keras 3.15's values) for a first call on IMGS
SEEDED = {
    "rotation": (
        lambda: L.RandomRotation(0.2, seed=5),
        lambda o: o[0, 0, :, 0],
        [39.0701, 26.3235, 14.3050, 3.3448, 4.7024],
    ),
    "zoom": (
        lambda: L.RandomZoom(0.3, (-0.2, 0.1), seed=5),
        lambda o: o[1, 1, :, 1],
        [74.5075, 77.2516, 80.5075, 83.7634, 86.5075],
    ),
    "translation": (
        lambda: L.RandomTranslation(0.2, 0.3, seed=5),
        lambda o: o[1, :, 2, 0],
        [61.9412, 68.9812, 83.9812, 98.9812],
    ),
    "brightness": (lambda: L.RandomBrightness(0.5, seed=5), lambda o: o[:, 0, 0, 0], [0.0, 144.57562]),
    "contrast": (lambda: L.RandomContrast(0.5, seed=5), lambda o: o[:, 0, 0, 0], [0.0, 48.14872]),
    "crop": (lambda: L.RandomCrop(2, 3, seed=5), lambda o: o[:, 0, 0, 0], [3.0, 63.0]),
    "hue": (
        lambda: L.RandomHue(0.4, seed=5),
        lambda o: o[:, 1, 1, :],
        [[18.47753, 18.0, 20.0], [78.0, 80.0, 78.71767]],
    ),
    "posterization": (lambda: L.RandomPosterization((2, 6), seed=5), lambda o: o[:, 3, 4, :], [[56.0] * 3, [96.0] * 3]),
    "invert": (lambda: L.RandomInvert(0.5, seed=9), lambda o: o[:, 0, 0, 0], [0.0, 195.0]),
    "erasing": (lambda: L.RandomErasing(0.8, seed=5), lambda o: o.sum(), 7176.0205),
    "perspective": (lambda: L.RandomPerspective(0.8, seed=5), lambda o: o.sum(), 7140.0),
}


@pytest.mark.parametrize("name", sorted(SEEDED))
def test_a_seeded_layer_draws_keras_values(name):
    make, pick, want = SEEDED[name]
    first = make()(IMGS).numpy()
    np.testing.assert_allclose(pick(first), want, rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(make()(IMGS).numpy(), first)  # two layers, one seed: alike


def test_rand_augment_draws_each_operation_once_per_call_as_keras():
    layer = L.RandAugment(seed=7)
    # TF 2.21 gives 16922.168 then 17485.885 (the generator moves on between calls)
    np.testing.assert_allclose(
        [layer(IMGS).numpy().sum(), layer(IMGS).numpy().sum()], [16922.168, 17485.885], rtol=1e-5
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: L.RandomRotation(0.4, seed=7),
        lambda: L.RandomFlip(seed=3),
        lambda: L.RandomCrop(3, 3, seed=3),
        lambda: L.RandomGrayscale(seed=3),
        lambda: L.RandomBrightness(0.5, seed=3),
    ],
)
def test_a_seeded_layer_draws_anew_in_every_pass_of_a_dataset_map(make):
    aug = make()
    images = np.random.RandomState(0).uniform(0, 255, (8, 6, 7, 3)).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices(images).batch(8).map(lambda x: aug(x, training=True))
    first, second = (next(iter(ds)).numpy() for _ in range(2))
    assert not np.array_equal(first, second)  # TF 2.21: each epoch differs
    assert aug.weights == []  # the generator's state is no weight, as Keras's


U8 = (np.random.RandomState(0).rand(2, 3, 3, 3) * 255).astype("uint8")


def test_integer_images_keep_their_dtype_where_keras_keeps_it():
    # TF 2.21: RandomGrayscale and RandomBrightness give uint8 in training
    assert L.RandomGrayscale(1.0)(U8, training=True).dtype == tf.uint8
    assert L.RandomBrightness(0.2)(U8, training=True).dtype == tf.uint8
    # TF 2.21: these return integer images as they are at inference
    for make in (
        lambda: L.RandomInvert(),
        lambda: L.RandomHue(0.2),
        lambda: L.RandomSaturation(0.2),
        lambda: L.RandomPosterization(4),
        lambda: L.RandomColorDegeneration(0.3),
        lambda: L.RandomContrast(0.2),
        lambda: L.Equalization(),
        lambda: L.MixUp(),
    ):
        out = make()(U8, training=False)
        assert out.dtype == tf.uint8
        np.testing.assert_array_equal(out.numpy(), U8)
    # TF 2.21: RandomCrop leaves float64 alone at inference, RandomFlip casts
    assert L.RandomCrop(3, 3)(U8.astype("float64"), training=False).dtype == tf.float64
    assert L.RandomFlip()(U8, training=False).dtype == tf.float32


def test_integer_brightness_adds_a_truncated_delta_in_the_image_dtype():
    out = L.RandomBrightness(0.3, seed=2)(U8).numpy().ravel()
    # TF 2.21's first values; uint8 sums wrap (17 and 35 were 227 and 245), int32 ones clip
    np.testing.assert_array_equal(out[:9], [185, 228, 199, 184, 154, 210, 157, 17, 35])
    wide = L.RandomBrightness(0.3, seed=2)(U8.astype("int32")).numpy().ravel()
    np.testing.assert_array_equal(wide[:9], [185, 228, 199, 184, 154, 210, 157, 255, 255])
    gray = L.RandomGrayscale(0.5, seed=2)(U8).numpy().ravel()
    np.testing.assert_array_equal(gray[:6], [139, 182, 153, 138, 108, 164])  # TF 2.21


def test_deserialize_resolves_custom_names_and_module_objects_as_keras():
    d = tf.keras.utils.deserialize_keras_object
    # TF 2.21: a string naming a custom object is that object
    assert d("foo", custom_objects={"foo": len}) is len
    # TF 2.21: module_objects is Keras's legacy get(identifier) lookup
    assert d("relu", module_objects=vars(tf.keras.activations)) is tf.keras.activations.relu
    dense = d({"class_name": "Dense", "config": {"units": 3}}, module_objects=vars(tf.keras.layers))
    assert isinstance(dense, tf.keras.layers.Dense) and dense.units == 3
    assert d("nothing", module_objects=vars(tf.keras.activations)) == "nothing"


def test_bytes_serialize_as_keras():
    config = tf.keras.utils.serialize_keras_object(b"ab")
    assert config == {"class_name": "__bytes__", "config": {"value": "ab"}}  # TF 2.21
    assert tf.keras.utils.deserialize_keras_object(config) == b"ab"


def test_split_dataset_of_a_1d_integer_array_gives_int32_as_keras():
    split = tf.keras.utils.split_dataset
    # TF 2.21: int32 for int64 and uint8 samples, int64 when a value needs it, 2-D rows keep int64
    assert split(np.arange(10), left_size=0.5)[0].element_spec.dtype == tf.int32
    assert split(np.arange(10).astype("uint8"), left_size=0.5)[1].element_spec.dtype == tf.int32
    assert split(np.array([2**40, 1]), left_size=0.5)[0].element_spec.dtype == tf.int64
    assert split(np.arange(10).reshape(5, 2), left_size=0.5)[0].element_spec.dtype == tf.int64
    assert [int(v) for v in split(np.arange(4), left_size=2)[1]] == [2, 3]


VARIABLE_SIZE = {  # layer, Keras's output shape on Input((None, None, 3)) (TF 2.21)
    "CenterCrop": (lambda: L.CenterCrop(3, 4), (None, 3, 4, 3)),
    "CenterCrop up": (lambda: L.CenterCrop(8, 12), (None, 8, 12, 3)),
    "RandomCrop": (lambda: L.RandomCrop(3, 4, seed=1), (None, 3, 4, 3)),
    "Resizing crop": (lambda: L.Resizing(4, 3, crop_to_aspect_ratio=True), (None, 4, 3, 3)),
    "Resizing pad": (lambda: L.Resizing(4, 3, pad_to_aspect_ratio=True), (None, 4, 3, 3)),
    "RandomRotation": (lambda: L.RandomRotation(0.2, seed=1), (None, None, None, 3)),
    "RandomZoom": (lambda: L.RandomZoom(0.2, seed=1), (None, None, None, 3)),
    "RandomTranslation": (lambda: L.RandomTranslation(0.2, 0.2, seed=1), (None, None, None, 3)),
    "RandomShear": (lambda: L.RandomShear(0.2, seed=1), (None, None, None, 3)),
    "RandomPerspective": (lambda: L.RandomPerspective(seed=1), (None, None, None, 3)),
    "RandAugment": (lambda: L.RandAugment(seed=1), (None, None, None, 3)),
    "RandomErasing": (lambda: L.RandomErasing(seed=1), (None, None, None, 3)),
}
IMAGE_7X9 = np.arange(2 * 7 * 9 * 3, dtype="float32").reshape(2, 7, 9, 3)


@pytest.mark.parametrize("name", sorted(VARIABLE_SIZE))
def test_image_layers_build_on_a_variable_size_input(name):
    make, shape = VARIABLE_SIZE[name]
    model = tf.keras.Sequential([tf.keras.Input((None, None, 3)), make()])
    assert model.output_shape == shape
    if name == "RandAugment":
        return  # (its 11 operations trace slowly)
    # a run-time size in a function draws and computes as the eager call on the same images
    eager = make()(IMAGE_7X9, training=True).numpy()
    layer = make()
    traced = tf.function(lambda t: layer(t, training=True), input_signature=[tf.TensorSpec([None, None, None, 3])])
    np.testing.assert_allclose(traced(IMAGE_7X9).numpy(), eager, rtol=1e-5, atol=1e-3)


def test_center_crop_sums_keras_values_on_a_variable_size_input():
    model = tf.keras.Sequential([tf.keras.Input((None, None, 3)), L.CenterCrop(3, 4)])
    assert float(model(IMAGE_7X9).numpy().sum()) == 13464.0  # TF 2.21
    padded = tf.keras.Sequential([tf.keras.Input((None, None, 3)), L.Resizing(4, 3, pad_to_aspect_ratio=True)])
    assert float(padded(IMAGE_7X9).numpy().sum()) == 6786.0  # TF 2.21


def test_integer_lookup_casts_float_inputs_as_keras():
    out = L.IntegerLookup(vocabulary=[1, 2])(np.array([2.0, 1.0, 3.7, -1.2]))
    assert out.dtype == tf.int64 and out.numpy().tolist() == [2, 1, 0, 0]  # TF 2.21 (truncated, then looked up)
    assert L.IntegerLookup(vocabulary=[1, 2], invert=True)(np.array([2.0, 1.0])).numpy().tolist() == [2, 1]


def test_category_encoding_reduces_axis_1_of_rank_3_inputs_as_keras():
    x = np.array([[[0, 1], [1, 1]], [[2, 3], [3, 3]]])
    multi = L.CategoryEncoding(4, output_mode="multi_hot")(x).numpy()
    # TF 2.21: one-hot, then the max (or sum) over axis 1
    np.testing.assert_array_equal(multi, [[[1, 1, 0, 0], [0, 1, 0, 0]], [[0, 0, 1, 1], [0, 0, 0, 1]]])
    count = L.CategoryEncoding(4, output_mode="count")(x).numpy()
    np.testing.assert_array_equal(count, [[[1, 1, 0, 0], [0, 2, 0, 0]], [[0, 0, 1, 1], [0, 0, 0, 2]]])
    weighted = L.CategoryEncoding(4, output_mode="count")(
        np.array([[[0, 1]], [[2, 3]]]), count_weights=np.array([[[0.5, 1]], [[2, 3]]])
    )
    np.testing.assert_array_equal(weighted.numpy(), [[[0.5, 0, 0, 0], [0, 1, 0, 0]], [[0, 0, 2, 0], [0, 0, 0, 3]]])


def test_to_categorical_counts_negative_labels_from_the_end_as_keras():
    # TF 2.21: [[1, 0, 0], [0, 0, 1]]
    np.testing.assert_array_equal(tf.keras.utils.to_categorical([0, -1], 3), [[1, 0, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match="class labels must be in"):
        tf.keras.utils.to_categorical([0, -4], 3)


def test_tf_idf_lookups_expose_keras_idf_weights():
    layer = L.StringLookup(output_mode="tf_idf")
    layer.adapt(np.array([["a", "b"], ["a", "c"], ["a", "a"]]))
    # TF 2.21: the OOV weight (their mean) then the tokens' (a, b, c)
    np.testing.assert_allclose(layer.idf_weights.numpy(), [0.7974, 0.55962, 0.91629, 0.91629], rtol=1e-4)
    given = L.StringLookup(output_mode="tf_idf", vocabulary=["x", "y"], idf_weights=[0.5, 0.25])
    np.testing.assert_allclose(given.idf_weights.numpy(), [0.375, 0.5, 0.25])
    masked = L.IntegerLookup(output_mode="tf_idf", num_oov_indices=2, mask_token=0)
    masked.adapt(np.array([[1, 2], [1, 3]]))
    np.testing.assert_allclose(masked.idf_weights.numpy(), [0.63237, 0.63237, 0.51083, 0.69315, 0.69315], rtol=1e-4)
    assert layer.weights == []  # (not a weight, as Keras's)
    assert not hasattr(L.StringLookup(), "idf_weights") and not hasattr(
        L.StringLookup(output_mode="tf_idf"), "idf_weights"
    )


def test_unsorted_bin_boundaries_and_unadapted_lookups_raise_as_keras():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected sorted boundaries"):  # TF 2.21's Bucketize
        L.Discretization(bin_boundaries=[2.0, 1.0])(np.array([1.5]))
    assert L.Discretization(bin_boundaries=[1.0, 1.0, 2.0])(np.array([1.5])).numpy().tolist() == [2]
    # TF 2.21: FailedPreconditionError 'Table not initialized' (tfunc gave [[1, 1]], all OOV)
    with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized"):
        L.TextVectorization()(["a b"])
    with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized"):
        L.StringLookup()(["a", "b"])
    # a model may still be built before its layer is adapted
    vectorize = L.TextVectorization(output_sequence_length=3)
    model = tf.keras.Sequential([tf.keras.Input((1,), dtype="string"), vectorize])
    vectorize.adapt(["a b", "a"])
    assert model(np.array([["a b"]])).numpy().tolist() == [[2, 3, 0]]


CHANNELS_FIRST = {  # TF 2.21's sums on the (2, 3, 7, 9) channels-first batch below, and on its first image
    "Resizing": (lambda: L.Resizing(4, 5, data_format="channels_first"), 15233.7, 7729.6),
    "Resizing crop": (
        lambda: L.Resizing(4, 5, crop_to_aspect_ratio=True, data_format="channels_first"),
        15319.3,
        7941.7,
    ),
    "CenterCrop": (lambda: L.CenterCrop(4, 5, data_format="channels_first"), 15431.5, 7841.8),
    "RandomCrop": (lambda: L.RandomCrop(4, 5, seed=3, data_format="channels_first"), 15391.3, 7373.4),
    "RandomContrast": (lambda: L.RandomContrast(0.4, seed=3, data_format="channels_first"), 47653.6, 24448.7),
    "RandomBrightness": (lambda: L.RandomBrightness(0.4, seed=3, data_format="channels_first"), 51507.2, 14167.1),
    "RandomRotation": (lambda: L.RandomRotation(0.3, seed=3, data_format="channels_first"), 47329.0, 24289.2),
    "RandomTranslation": (
        lambda: L.RandomTranslation(0.2, 0.3, seed=3, data_format="channels_first"),
        48244.7,
        24775.9,
    ),
}


@pytest.mark.parametrize("name", sorted(CHANNELS_FIRST))
def test_image_preprocessing_layers_take_channels_first_images(name):
    make, batch_sum, image_sum = CHANNELS_FIRST[name]
    x = np.random.RandomState(0).uniform(0, 255, (2, 3, 7, 9)).astype("float32")
    out = make()(x).numpy()
    assert out.shape[:2] == (2, 3)
    np.testing.assert_allclose([out.sum(), make()(x[0]).numpy().sum()], [batch_sum, image_sum], rtol=1e-5)


def test_an_unadapted_lookup_refuses_traced_calls_too():
    # TF 2.21 / Keras 3.15: FailedPreconditionError inside tf.function and Dataset.map as well
    lookup = L.StringLookup()
    with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized"):
        tf.function(lookup)(tf.constant(["a", "b"]))
    with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized"):
        list(tf.data.Dataset.from_tensor_slices(["a"]).map(lookup))
    inp = tf.keras.Input((), dtype="string")
    tf.keras.Model(inp, lookup(inp))  # a model may still be built on it before adapt


def test_cutmix_with_a_seed_gives_kerass_images_and_labels():
    # Keras 3.15 on TF 2.21 (the labels' weights from the box's corners, to the last bit)
    imgs = np.random.RandomState(0).rand(4, 8, 8, 3).astype("float32") * 255
    out = L.CutMix(seed=3)({"images": imgs, "labels": np.eye(4, dtype="float32")}, training=True)
    assert out["labels"].numpy().ravel()[:8].tolist() == [
        1.1920928955078125e-07, 0.0, 0.9999998807907104, 0.0, 0.8106610774993896, 0.18933892250061035, 0.0, 0.0
    ]  # fmt: skip
    assert float(np.sum(out["images"].numpy())) == 97628.3125
