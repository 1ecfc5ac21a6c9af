"""mxu.keras.DeviceStrategy(chips, parallel="model") (issue 67): one replica over the chips, every
Dense kernel split by its output columns, as `mxu train --parallel model`. Its forward products
give one chip's bits (checked against a one-chip model with the same weights); each chip runs
its columns' share of every product; the all-gathers of the outputs and the all-reduces of the
input gradients are charged by the ring's formulas (written out here)."""
import math

import keras
import numpy as np
import pytest

import mxu
import mxu.keras

DEVICE = "8x8"
ROWS, FEATURES, HIDDEN, CLASSES = 24, 20, 16, 3


@pytest.fixture(autouse=True)
def fresh_layer_names():
    yield
    keras.backend.clear_session()


def mlp(strategy):
    keras.utils.set_random_seed(0)
    with strategy.scope():
        model = keras.Sequential([keras.Input((FEATURES,)),
                                  keras.layers.Dense(HIDDEN, activation="relu"),
                                  keras.layers.Dense(CLASSES)])
        model.compile(optimizer=keras.optimizers.SGD(0.1),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def ring(nbytes, chips, steps):
    """train/interconnect.h's formula, written out: `steps` ring steps of a chunk each."""
    return steps * (350 + math.ceil(nbytes / chips / 88))


def test_kernels_split_by_columns_give_one_chips_forward_bits_and_charge_the_ring():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((ROWS, FEATURES)).astype(np.float32)
    y = x[:, :CLASSES].argmax(1).astype(np.int32)
    one = mlp(mxu.keras.DeviceStrategy(mxu.Device(backend="model", device=DEVICE)))
    with mxu.Devices(2, backend="model", device=DEVICE, timeout=60) as chips:
        strategy = mxu.keras.DeviceStrategy(chips, parallel="model", strict=True)
        assert strategy.num_replicas_in_sync == 1
        two = mlp(strategy)
        want, got = one.predict(x, verbose=0), two.predict(x, verbose=0)
        assert np.array_equal(want.view(np.uint32), got.view(np.uint32))
        one.fit(x, y, batch_size=ROWS, epochs=1, shuffle=False, verbose=0)
        two.fit(x, y, batch_size=ROWS, epochs=1, shuffle=False, verbose=0)
        report = strategy.report()
    # The last layer's kernel gradient (its input and its output gradient) is one chip's bits;
    # the first layer's sees the input gradient summed over the chips' partial products.
    last = [w.numpy() for w in (one.weights[2], two.weights[2])]
    assert np.array_equal(last[0].view(np.uint32), last[1].view(np.uint32))
    for a, b in zip(one.weights, two.weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=0, atol=1e-6)
    forward = [{e["module"]: e["device_macs"] for e in c["ops"] if e["phase"] == "forward"}
               for c in report["chips"]]
    layers = sorted(forward[0])
    # predict and one training step: each chip its half of the 16 columns, 2 and 1 of the 3.
    assert [f[layers[0]] for f in forward] == [2 * ROWS * FEATURES * 8] * 2
    assert [f[layers[1]] for f in forward] == [2 * ROWS * HIDDEN * 2, 2 * ROWS * HIDDEN * 1]
    assert all(c["host_products"] == 0 for c in report["chips"])
    link = report["interconnect"]
    gathered = [4 * ROWS * HIDDEN, 4 * ROWS * CLASSES] * 2  # every forward output, twice
    assert link["all_gathers"] == 4 and link["all_gather_bytes"] == sum(gathered)
    assert link["all_gather_cycles"] == sum(ring(b, 2, 1) for b in gathered)
    # The second layer's input gradient (the first layer's is not needed): summed over the chips.
    assert link["all_reduces"] == 1 and link["all_reduce_bytes"] == 4 * ROWS * HIDDEN
    assert link["all_reduce_cycles"] == ring(4 * ROWS * HIDDEN, 2, 2)
    assert report["step_time"]["steps"] == 2 and report["step_time"]["communication_cycles"] == (
        link["all_gather_cycles"] + link["all_reduce_cycles"])


def test_bad_parallel_settings_are_one_line():
    with pytest.raises(ValueError, match="^mxu.keras.DeviceStrategy: parallel must be 'data' "
                                         r"\(replicas\) or 'model' .*, got 'pipeline'$"):
        mxu.keras.DeviceStrategy([mxu.Device(backend="model", device=DEVICE)],
                                 parallel="pipeline")
    with pytest.raises(TypeError, match="^mxu.keras.DeviceStrategy: parallel: .* need several "
                                        "chips"):
        mxu.keras.DeviceStrategy(mxu.Device(backend="model", device=DEVICE), parallel="model")
