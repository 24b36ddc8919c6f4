"""Ops that act on objects (datasets, iterators, TensorArray buffers, loop stacks, traced
functions) rather than arrays: the generated op tests leave them to these tests."""

COVERED_ELSEWHERE = {
    "dataset_loop": "tests/function/autograph/test_datasets.py",
    "make_iterator": "tests/function/autograph/test_datasets.py",
    "iterator_get_next": "tests/function/autograph/test_datasets.py",
    "loop_stack_size": "tests/autodiff/test_function_gradients.py",
    "loop_stack_read": "tests/autodiff/test_function_gradients.py",
    "tensor_array_new": "tests/function/autograph/test_conversion.py",
    "tensor_array_write": "tests/function/autograph/test_conversion.py",
    "tensor_array_read": "tests/function/autograph/test_conversion.py",
    "tensor_array_stack": "tests/function/autograph/test_conversion.py",
    "tensor_array_unstack": "tests/function/autograph/test_conversion.py",
    "tensor_array_size": "tests/function/autograph/test_conversion.py",
    "tensor_array_gather": "tests/api/test_tensor_array.py",
    "tensor_array_scatter": "tests/api/test_tensor_array.py",
    "tensor_array_split": "tests/api/test_tensor_array.py",
    "tensor_array_concat": "tests/api/test_tensor_array.py",
    "tensor_array_grad_dense": "tests/api/test_tensor_array.py",
    "function_call": "tests/autodiff/test_function_gradients.py",
    "custom_gradient": "tests/autodiff/test_custom_gradient.py",
    "stash": "tests/autodiff/test_control_flow_stash.py",
    "unstash": "tests/autodiff/test_control_flow_stash.py",
}
