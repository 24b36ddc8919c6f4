"""tf.device, tf.config's device listings and visibility, memory growth and soft placement.
The GPU paths run where a GPU answers and skip cleanly elsewhere."""

import numpy as np
import pytest

import tfunc as tf
from tfunc.core import device as _device
from tfunc.testing import available_backends

HAS_GPU = "cupy" in available_backends()


@pytest.fixture(autouse=True)
def _restore_device_settings():
    yield
    tf.config.set_soft_device_placement(False)
    tf.config.set_visible_devices(tf.config.list_physical_devices())


def test_logical_and_physical_devices():
    cpus = tf.config.list_logical_devices("CPU")
    assert cpus == [tf.config.LogicalDevice(name="/device:CPU:0", device_type="CPU")]
    assert [d.device_type for d in tf.config.list_logical_devices()] == ["CPU"] + ["GPU"] * len(
        tf.config.list_physical_devices("GPU")
    )
    assert tf.config.get_visible_devices("CPU") == tf.config.list_physical_devices("CPU")


@pytest.mark.parametrize(
    "name", ["/CPU:0", "/cpu:0", "CPU:0", "/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0", "cpu"]
)
def test_cpu_scope_places_ops_on_numpy(name):
    with tf.device(name):
        x = tf.constant([1.0, 2.0])
        y = tf.matmul(tf.reshape(x, [1, 2]), tf.ones([2, 1]))
    assert type(y._value).__module__ == "numpy"
    assert y.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert float(y[0, 0]) == 3.0  # (float() of a (1, 1) tensor is a TypeError, as TensorFlow's)


@pytest.mark.skipif(HAS_GPU, reason="a GPU answers here")
def test_a_missing_gpu_is_a_clear_error():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not satisfy device specification '/GPU:0'"):
        with tf.device("/GPU:0"):
            tf.constant(1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="GPU"):
        tf.function(lambda: tf.device("/GPU:0").__enter__())()
    tf.config.set_soft_device_placement(True)
    with tf.device("/GPU:0"):
        assert tf.constant(1.0).device.endswith("CPU:0")


def test_bad_device_names():
    with pytest.raises(ValueError, match="Invalid device specification"):
        with tf.device("/TPU:0"):
            pass
    with pytest.raises(tf.errors.InvalidArgumentError, match="one CPU device"):
        with tf.device("/CPU:1"):
            pass


def test_device_blocks_inside_functions_are_accepted():
    @tf.function
    def f(x):
        with tf.device("/CPU:0"):
            return x * 2.0

    assert f(tf.constant(3.0)).numpy() == 6.0


def test_visible_devices_and_memory_growth():
    tf.config.set_visible_devices([], "GPU")
    assert tf.config.get_visible_devices("GPU") == []
    assert tf.config.list_logical_devices("GPU") == []
    assert len(tf.config.list_physical_devices("GPU")) == len(tf.config.experimental.list_physical_devices("GPU"))
    assert _device.current().name == "numpy"  # new tensors go to the host
    with pytest.raises(ValueError, match="CPU cannot be hidden"):
        tf.config.set_visible_devices([], "CPU")
    cpu = tf.config.list_physical_devices("CPU")[0]
    with pytest.raises(ValueError, match="non-GPU"):
        tf.config.experimental.set_memory_growth(cpu, True)
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.experimental.set_memory_growth(tf.config.PhysicalDevice("/physical_device:GPU:7", "GPU"), True)
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
        assert tf.config.experimental.get_memory_growth(gpu) is True


@pytest.mark.skipif(not HAS_GPU, reason="needs CuPy and an NVIDIA GPU")
def test_gpu_and_cpu_scopes_copy_at_the_boundaries():
    with tf.device("/CPU:0"):
        host = tf.constant([1.0, 2.0])
    with tf.device("/GPU:0"):
        gpu = host * 2.0  # the host input is copied to the GPU
        made = tf.ones([2])
    assert type(gpu._value).__module__.startswith("cupy") and type(made._value).__module__.startswith("cupy")
    assert gpu.device.endswith("GPU:0")
    with tf.device("/CPU:0"):
        back = gpu + 1.0  # and back to the host
    assert type(back._value).__module__ == "numpy"
    np.testing.assert_array_equal(back.numpy(), [3.0, 5.0])
