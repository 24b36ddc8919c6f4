"""``tf.saved_model.SaveOptions`` and ``LoadOptions``: TensorFlow's option objects.

What tfunc does with each: ``experimental_custom_gradients`` (default True, as in
TensorFlow) saves the gradients of functions that use ``tf.custom_gradient``, so a loaded
function's gradient is the custom one; with False a gradient through such a loaded function
raises ``LookupError``, as TensorFlow does in a process that did not define the gradient.
``experimental_io_device`` is accepted and changes nothing (tfunc reads and writes on the
host).  Other options exist for TensorFlow's runtime alone; a value other than their default
is refused with ``NotImplementedError`` rather than silently ignored.
"""

from __future__ import annotations

__all__ = ["SaveOptions", "LoadOptions"]


def _refuse(cls_name: str, name: str, value, default) -> None:
    if value != default and not (default is None and value in ((), [], {})):
        raise NotImplementedError(
            f"tfunc's {cls_name} does not implement {name}={value!r} (TensorFlow runtime option); "
            f"leave it at {default!r}."
        )


class SaveOptions:
    """Options for ``tf.saved_model.save`` (TensorFlow's parameters, same defaults)."""

    __slots__ = (
        "namespace_whitelist",
        "save_debug_info",
        "function_aliases",
        "experimental_debug_stripper",
        "experimental_io_device",
        "experimental_variable_policy",
        "experimental_custom_gradients",
        "experimental_image_format",
        "experimental_skip_saver",
        "experimental_sharding_callback",
        "extra_tags",
    )

    def __init__(
        self,
        namespace_whitelist=None,
        save_debug_info=False,
        function_aliases=None,
        experimental_debug_stripper=False,
        experimental_io_device=None,
        experimental_variable_policy=None,
        experimental_custom_gradients=True,
        experimental_image_format=False,
        experimental_skip_saver=False,
        experimental_sharding_callback=None,
        extra_tags=None,
    ):
        if not isinstance(experimental_custom_gradients, bool):
            raise TypeError(
                f"experimental_custom_gradients must be a bool, got {type(experimental_custom_gradients).__name__}."
            )
        if experimental_io_device is not None and not isinstance(experimental_io_device, str):
            raise TypeError(f"experimental_io_device must be a device string, got {experimental_io_device!r}.")
        for name, value, default in (
            ("namespace_whitelist", namespace_whitelist, None),
            ("save_debug_info", save_debug_info, False),
            ("function_aliases", function_aliases, None),
            ("experimental_debug_stripper", experimental_debug_stripper, False),
            ("experimental_variable_policy", experimental_variable_policy, None),
            ("experimental_image_format", experimental_image_format, False),
            ("experimental_skip_saver", experimental_skip_saver, False),
            ("experimental_sharding_callback", experimental_sharding_callback, None),
            ("extra_tags", extra_tags, None),
        ):
            _refuse("SaveOptions", name, value, default)
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags

    def __repr__(self) -> str:
        return (
            f"SaveOptions(experimental_custom_gradients={self.experimental_custom_gradients}, "
            f"experimental_io_device={self.experimental_io_device!r})"
        )


class LoadOptions:
    """Options for ``tf.saved_model.load`` (TensorFlow's parameters, same defaults)."""

    __slots__ = (
        "allow_partial_checkpoint",
        "experimental_io_device",
        "experimental_skip_checkpoint",
        "experimental_variable_policy",
        "experimental_load_function_aliases",
    )

    def __init__(
        self,
        allow_partial_checkpoint=False,
        experimental_io_device=None,
        experimental_skip_checkpoint=False,
        experimental_variable_policy=None,
        experimental_load_function_aliases=False,
    ):
        if experimental_io_device is not None and not isinstance(experimental_io_device, str):
            raise TypeError(f"experimental_io_device must be a device string, got {experimental_io_device!r}.")
        for name, value, default in (
            ("allow_partial_checkpoint", allow_partial_checkpoint, False),
            ("experimental_skip_checkpoint", experimental_skip_checkpoint, False),
            ("experimental_variable_policy", experimental_variable_policy, None),
            ("experimental_load_function_aliases", experimental_load_function_aliases, False),
        ):
            _refuse("LoadOptions", name, value, default)
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases


def check_options(options, cls):
    """``options`` or the defaults; a TypeError naming what was passed instead."""
    if options is None:
        return cls()
    if not isinstance(options, cls):
        raise TypeError(f"options must be a tf.saved_model.{cls.__name__}, got {type(options).__name__}: {options!r}.")
    return options
