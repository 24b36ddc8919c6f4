"""A finished trace is freed when its last reference goes, not at the next garbage-collector
pass: cycles through the graph kept every node record of every retrace alive until one, and
those passes cost a tenth of a retrace (and grew with the program's heap)."""

import gc
import weakref

import numpy as np

import tfunc as tf
from tfunc.optimize.pipeline import optimize


def _without_gc(fn):
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        return fn()
    finally:
        if was:
            gc.enable()


def test_the_traced_graph_is_freed_once_frozen():
    graphs = []

    @tf.function
    def f(x):
        graphs.append(weakref.ref(x.graph))
        return tf.tanh(x) * 2.0 + 1.0

    def run():
        for n in (3, 4):  # a first trace and a retrace
            np.testing.assert_allclose(f(tf.ones([n])).numpy(), np.tanh(1.0) * 2 + 1, rtol=1e-6)
        return [g() for g in graphs]

    assert _without_gc(run) == [None, None]
    assert f.get_concrete_function(tf.ones([3])).graph.inputs  # a thawed copy keeps its tensors


def test_a_leaked_tensor_keeps_its_graph():
    leaked = []

    @tf.function
    def f(x):
        leaked.append(x)
        return x + 1.0

    f(tf.ones([2]))
    assert leaked[0].graph is not None and leaked[0].graph.ir is not None


def test_an_optimized_graph_is_freed_by_reference_counting():
    """Removing a node must not leave networkx's cached edge view (which holds the graph)."""

    @tf.function
    def f(x):
        return tf.tanh(x) + 1.0

    traced = f.get_concrete_function(tf.ones([3])).graph.ir

    def run():
        optimized, _ = optimize(traced)
        assert len(optimized) < len(traced)  # the output identity went through remove_node
        view = weakref.ref(optimized.nx)
        del optimized
        return view()

    assert _without_gc(run) is None


def test_verifying_and_drawing_a_graph_leave_no_cycle():
    from tfunc.graph.verify import verify_graph

    traced = tf.function(lambda x: tf.tanh(x) + 1.0).get_concrete_function(tf.ones([3])).graph.ir

    def run():
        g = traced.copy()
        view = weakref.ref(g.nx)
        verify_graph(g, "in a test")
        assert "->" in g.to_dot()
        del g
        return view()

    assert _without_gc(run) is None
