"""Keras 3.15's fit-time helpers outside the model: data adapters (PyDataset, the
``pack_x_y_sample_weight`` family) and callbacks' refusals. Expected values come from TF 2.21 /
Keras 3.15."""

import pytest

from tfunc.keras import callbacks


@pytest.mark.parametrize("path", ["best.h5", "best.hdf5"])
def test_model_checkpoint_names_the_legacy_h5_refusal(path):
    # TF 2.21 writes a legacy Keras 2 HDF5 model here; tfunc refuses, and says why and what to use.
    with pytest.raises(ValueError, match=r"legacy `\.h5` \(Keras 2 HDF5\).*`\.keras`.*save_weights_only=True"):
        callbacks.ModelCheckpoint(path, save_best_only=True, monitor="loss")
