"""``keras.preprocessing`` as Keras 3.15 exposes it: ``image``, ``sequence`` and the dataset
makers, the same functions as ``keras.utils``'s."""

import tfunc as tf

keras = tf.keras


def test_the_namespace_lists_keras_names():
    # Keras 3.15's dir(keras.preprocessing) (no `text` module; no TimeseriesGenerator)
    assert {
        "image",
        "sequence",
        "image_dataset_from_directory",
        "text_dataset_from_directory",
        "timeseries_dataset_from_array",
    } <= set(dir(keras.preprocessing))
    assert keras.preprocessing.image_dataset_from_directory is keras.utils.image_dataset_from_directory
    assert keras.preprocessing.text_dataset_from_directory is keras.utils.text_dataset_from_directory
    assert keras.preprocessing.timeseries_dataset_from_array is keras.utils.timeseries_dataset_from_array
    for name in ("array_to_img", "img_to_array", "load_img", "save_img"):
        assert getattr(keras.preprocessing.image, name) is getattr(keras.utils, name)
    assert keras.preprocessing.sequence.pad_sequences is keras.utils.pad_sequences


def test_pad_sequences_through_the_namespace():
    # TF 2.21 gives [[2, 3], [0, 4]]
    out = keras.preprocessing.sequence.pad_sequences([[1, 2, 3], [4]], maxlen=2)
    assert out.tolist() == [[2, 3], [0, 4]]
