"""mxu.keras.DeviceStrategy on the session's device: a Keras model made in the scope runs fit,
evaluate and predict with every product on the device; predict's bits are the numeric
contract's (python/tests/torch/contract.py); models made outside are not touched; the
mixed_bfloat16 policy works; bad arguments, and a device error, are one line."""
import logging

import keras
import numpy as np
import pytest

import contract
import mxu.keras


def data(n=96, features=20, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, features)).astype(np.float32)
    y = (x[:, :classes].argmax(1)).astype(np.int32)  # learnable: the largest of 3 features
    return x, y


def mlp(hidden=16, classes=3, **dense):
    return keras.Sequential([keras.layers.Dense(hidden, activation="relu", **dense),
                             keras.layers.Dropout(0.2), keras.layers.Dense(classes, **dense)])


def compile_(model):
    model.compile(optimizer=keras.optimizers.Adam(1e-2),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["sparse_categorical_accuracy"])
    return model


def totals(strategy):
    return strategy.report()["totals"]


def test_fit_evaluate_and_predict_run_their_products_on_the_device(dev, rows):
    keras.utils.set_random_seed(0)
    strategy = mxu.keras.DeviceStrategy(dev, strict=True)  # a product on the host would raise
    with strategy.scope():
        model = compile_(mlp())
    x, y = data()
    history = model.fit(x, y, epochs=3, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    after_fit = totals(strategy)
    # 9 steps: per step 2 forward GEMMs, and backward the weight gradients of both layers and
    # the input gradient of the second.
    assert after_fit["device_gemms"] == 9 * 5 and after_fit["host_products"] == 0
    model.evaluate(x, y, batch_size=96, verbose=0)
    assert totals(strategy)["device_gemms"] == 9 * 5 + 2
    got = model.predict(x[:7], verbose=0)
    assert totals(strategy)["device_gemms"] == 9 * 5 + 4 and totals(strategy)["host_products"] == 0
    # predict, bit for bit: Dense is matmul (the device), then bias and ReLU (the host, fp32).
    w1, b1, w2, b2 = [v.numpy() for v in model.weights]
    h = np.maximum(contract.gemm(x[:7], w1, rows) + b1, np.float32(0))
    want = contract.gemm(h, w2, rows) + b2
    np.testing.assert_array_equal(got.view(np.int32), contract.canonical(want).view(np.int32))
    entries = {(e["module"], e["phase"]) for e in strategy.report()["ops"]}
    assert entries == {("dense", "forward"), ("dense", "backward"), ("dense_1", "forward"),
                       ("dense_1", "backward")}, entries


def test_a_model_made_outside_the_scope_is_not_touched(dev):
    strategy = mxu.keras.DeviceStrategy(dev)
    outside = compile_(mlp())
    with strategy.scope():
        pass
    x, y = data()
    outside.fit(x, y, epochs=1, batch_size=48, verbose=0)
    outside.predict(x, verbose=0)
    assert totals(strategy)["calls"] == 0


def test_mixed_bfloat16_runs_on_the_device_in_bfloat16(dev, rows):
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    try:
        strategy = mxu.keras.DeviceStrategy(dev)
        with strategy.scope():
            model = compile_(mlp())
            single = keras.Sequential([keras.layers.Dense(3, use_bias=False)])
        x, y = data()
        history = model.fit(x, y, epochs=2, batch_size=48, verbose=0)
        got = single.predict(x[:5], verbose=0)
    finally:
        keras.mixed_precision.set_global_policy("float32")
    assert np.isfinite(history.history["loss"]).all()
    assert totals(strategy)["host_products"] == 0 and totals(strategy)["device_gemms"] == 4 * 5 + 1
    # bfloat16 operands (the float32 kernel cast by the layer) in, a bfloat16 product out: the
    # device's fp32 sum rounded once.
    assert model.layers[0].compute_dtype == "bfloat16" and got.dtype == np.dtype("bfloat16")
    bf16 = got.dtype
    w = single.weights[0].numpy().astype(bf16).astype(np.float32)
    want = contract.gemm(x[:5].astype(bf16).astype(np.float32), w, rows).astype(bf16)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


def test_a_conv2d_model_runs_its_convolutions_forward_and_backward_on_the_device(dev):
    keras.utils.set_random_seed(0)
    strategy = mxu.keras.DeviceStrategy(dev)
    with strategy.scope():
        model = compile_(keras.Sequential([
            keras.layers.Conv2D(4, 3, strides=2, padding="same", activation="relu"),
            keras.layers.MaxPooling2D(2),
            keras.layers.Flatten(), keras.layers.Dense(3)]))
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 8, 8, 2)).astype(np.float32)
    y = rng.integers(0, 3, 16).astype(np.int32)
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    ops = {(e["op"], e["phase"]): e["calls"] for e in strategy.report()["ops"]}
    # The first layer's input needs no gradient: its backward is the weight gradient alone.
    assert ops == {("conv_general_dilated", "forward"): 2, ("conv_general_dilated", "backward"): 2,
                   ("dot_general", "forward"): 2, ("dot_general", "backward"): 4}, ops
    assert totals(strategy)["host_products"] == 0


def test_one_replica_and_bad_arguments(dev):
    strategy = mxu.keras.DeviceStrategy(dev)
    assert strategy.num_replicas_in_sync == 1
    with pytest.raises(TypeError, match="^mxu.keras.DeviceStrategy: device must be an "
                                        "mxu.Device, got 'rtl'$"):
        mxu.keras.DeviceStrategy("rtl")
    other = mxu.keras.DeviceStrategy(dev)
    with strategy.scope():
        with pytest.raises(RuntimeError, match="another DeviceStrategy's scope is active"):
            with other.scope():
                pass


def test_functional_and_subclassed_models_made_in_the_scope_are_placed_too():
    from exact_device import ExactDevice  # python/tests/torch/exact_device.py
    strategy = mxu.keras.DeviceStrategy(ExactDevice())
    with strategy.scope():
        inputs = keras.Input((5,))
        outputs = keras.layers.Dense(3)(keras.layers.Dense(4, activation="relu")(inputs))
        functional = keras.Model(inputs, outputs)

        class Subclassed(keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = keras.layers.Dense(2)

            def call(self, x):
                return self.dense(x)
        subclassed = Subclassed()
    x = np.ones((8, 5), np.float32)
    for model, width in ((functional, 3), (subclassed, 2)):
        model.compile(optimizer="sgd", loss="mse")
        model.fit(x, np.ones((8, width), np.float32), verbose=0)
    # functional: 2 forward, 2 weight gradients, 1 input gradient; subclassed: 1 and 1
    assert totals(strategy)["device_gemms"] == 5 + 2 and totals(strategy)["host_products"] == 0


@pytest.mark.parametrize("strict", [False, True])
def test_an_integer_product_in_a_model_is_counted_or_refused(strict):
    from exact_device import ExactDevice  # python/tests/torch/exact_device.py
    strategy = mxu.keras.DeviceStrategy(ExactDevice(), strict=strict)
    with strategy.scope():
        model = keras.Sequential([keras.Input((5,)), keras.layers.Lambda(
            lambda x: keras.ops.matmul(keras.ops.cast(x, "int32"),
                                       keras.ops.ones((5, 2), "int32")))])
    x = np.ones((4, 5), np.float32)
    if strict:
        with pytest.raises(mxu.keras.HostProductError,
                           match="dot_general with int32 operands .* on the host"):
            model.predict(x, verbose=0)
    else:
        np.testing.assert_array_equal(model.predict(x, verbose=0), np.full((4, 2), 5))
        assert totals(strategy)["host_products"] == 1 and totals(strategy)["device_gemms"] == 0


def test_a_device_error_in_a_step_is_one_line(caplog, capfd):
    # Issue 69: JAX logged the failed callback's traceback (29 lines) before this line.
    from exact_device import ExactDevice  # python/tests/torch/exact_device.py

    class Failing(ExactDevice):
        def gemm(self, *args, **kwargs):
            raise RuntimeError("watchdog: GEMM did not finish in 5 cycles")
        gemm_batch = gemm
    strategy = mxu.keras.DeviceStrategy(Failing())
    with strategy.scope():
        model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(2, use_bias=False)])
    with pytest.raises(mxu.keras.DeviceOpError, match=r"^mxu.jax: dot_general\(4x5, 5x2\) on the "
                       r"device: watchdog: GEMM did not finish in 5 cycles$"):
        model.predict(np.ones((4, 5), np.float32), verbose=0)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert capfd.readouterr().err == ""
