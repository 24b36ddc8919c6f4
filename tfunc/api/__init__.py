"""Layer 4 (above dispatch and tracing), the TensorFlow-shaped functions over tensors:
``tfunc.add``, ``tfunc.reshape``, ``tfunc.cond``, ``tfunc.Variable``, ``tfunc.TensorArray``...
Each public op function checks and converts its arguments and calls ``dispatch.call`` with
its op from ``tfunc.ops``."""

from . import (
    array_ops,
    clip_ops,
    collective_ops,
    control_flow_ops,
    creation_ops,
    dataset_ops,
    image_ops,
    indexing_ops,
    io_ops,
    linalg_ops,
    math_ops,  # noqa: F401
    nn_ops,
    operators,
    pooling_ops,
    py_ops,
    random_ops,
    reduction_ops,
    segment_ops,
    slicing,
    sort_ops,
    tensor_array,
    variables,
)

operators.install()
