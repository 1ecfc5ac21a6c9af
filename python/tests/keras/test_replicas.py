"""mxu.keras.DeviceStrategy on several chips (issue 67): replicas, one per chip, each taking its
slice of the batch; the gradients summed in rank order (checked against the sum of one-chip runs
computed here in NumPy) and charged on the ring (checked against the formula written out here);
the same bits from run to run; mismatched or missing chips, and a chip whose worker dies or
hangs, refused in one line. Worker chips (mxu.Devices) on the model backend of a small device."""
import math
import os
import signal

import keras
import numpy as np
import pytest

import mxu
import mxu.keras

DEVICE = "8x8"  # small, so that the products are cheap
FEATURES, HIDDEN, CLASSES = 20, 16, 3


@pytest.fixture(autouse=True)
def fresh_layer_names():
    """Keras numbers its layers per session: the other tests' names stay as they expect."""
    yield
    keras.backend.clear_session()


@pytest.fixture(scope="module")
def two_chips():
    with mxu.Devices(2, backend="model", device=DEVICE, timeout=60) as chips:
        yield chips


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, FEATURES)).astype(np.float32)
    return x, x[:, :CLASSES].argmax(1).astype(np.int32)


def mlp(strategy, optimizer="adam", dropout=0.0):
    keras.utils.set_random_seed(0)
    with strategy.scope():
        model = keras.Sequential([keras.Input((FEATURES,)),
                                  keras.layers.Dense(HIDDEN, activation="relu"),
                                  keras.layers.Dropout(dropout), keras.layers.Dense(CLASSES)])
        model.compile(optimizer=optimizer,
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["sparse_categorical_accuracy"])
    return model


def bits(model):
    return [w.numpy().view(np.uint32).copy() for w in model.weights]


def ring_cycles(nbytes, chips, link=88, latency=350):
    """train/interconnect.h's formula, written out."""
    return 0 if chips == 1 else 2 * (chips - 1) * (latency + math.ceil(nbytes / chips / link))


def test_two_chips_take_their_slices_and_the_all_reduce_is_the_rings(two_chips):
    strategy = mxu.keras.DeviceStrategy(two_chips, strict=True)  # a host product would raise
    assert strategy.num_replicas_in_sync == 2
    model = mlp(strategy)
    x, y = data(17)
    model.fit(x, y, batch_size=10, epochs=1, shuffle=False, verbose=0)  # 10 = 5 + 5; 7 = 4 + 3
    report = strategy.report()
    chips = report["chips"]
    assert [c["device_gemms"] for c in chips] == [2 * 5, 2 * 5]  # 2 steps of 5 GEMMs each
    assert all(c["host_products"] == 0 for c in chips)
    # Each replica's forward product of the first layer ran on its own chip, on its rows alone.
    per_chip = [{(e["module"], e["phase"]): e["device_macs"] for e in c["ops"]} for c in chips]
    assert per_chip[0][("dense", "forward")] == (5 + 4) * FEATURES * HIDDEN
    assert per_chip[1][("dense", "forward")] == (5 + 3) * FEATURES * HIDDEN
    link = report["interconnect"]
    gradient_bytes = 4 * (FEATURES * HIDDEN + HIDDEN + HIDDEN * CLASSES + CLASSES)
    assert link["all_reduces"] == 2 and link["all_reduce_bytes"] == 2 * gradient_bytes
    assert link["all_reduce_cycles"] == 2 * ring_cycles(gradient_bytes, 2)
    assert link["all_reduce_cycles"] == 2 * mxu.ring_all_reduce_cycles(gradient_bytes, 2)
    step = report["step_time"]
    assert step["steps"] == 2 and step["communication_cycles"] == link["cycles"]
    assert max(c["device_cycles"] for c in chips) <= step["compute_cycles"] <= sum(
        c["device_cycles"] for c in chips)
    assert 0 < step["scaling_efficiency"] < 1
    assert report["totals"]["device_gemms"] == 20
    assert report["totals"]["energy_uj_with_links"] > report["totals"]["energy_uj"]


def test_two_runs_give_the_same_bits_and_predict_splits_too(two_chips):
    runs = []
    for _ in range(2):
        strategy = mxu.keras.DeviceStrategy(two_chips)
        model = mlp(strategy, dropout=0.2)
        x, y = data(40, seed=1)
        history = model.fit(x, y, batch_size=8, epochs=2, verbose=0)
        runs.append((bits(model), history.history["loss"], model.predict(x[:9], verbose=0)))
    (w0, l0, p0), (w1, l1, p1) = runs
    assert l0 == l1 and all(np.array_equal(a, b) for a, b in zip(w0, w1))
    assert np.array_equal(p0.view(np.uint32), p1.view(np.uint32)) and p0.shape == (9, CLASSES)


def test_the_sum_is_the_replicas_gradients_in_rank_order():
    """Three chips (in this process): a step of SGD(1) from zero weights leaves -(sum of the
    replicas' gradients); each replica's gradient is what one chip computes on its slice alone
    (its step leaves -g_r), scaled by its share of the batch, added here in rank order."""
    x = np.random.default_rng(2).standard_normal((12, FEATURES)).astype(np.float32)
    y = np.random.default_rng(3).standard_normal((12, 4)).astype(np.float32)

    def one_step(strategy, xs, ys):
        with strategy.scope():
            model = keras.Sequential([keras.Input((FEATURES,)), keras.layers.Dense(
                4, use_bias=False, kernel_initializer="zeros")])
            model.compile(optimizer=keras.optimizers.SGD(1.0), loss="mse")
        model.fit(xs, ys, batch_size=len(xs), epochs=1, shuffle=False, verbose=0)
        return model.weights[0].numpy()

    chips = mxu.Devices(3, backend="model", device=DEVICE, in_process=True)
    together = one_step(mxu.keras.DeviceStrategy(chips), x, y)
    alone = [-one_step(mxu.keras.DeviceStrategy(mxu.Device(backend="model", device=DEVICE)),
                       x[r * 4:(r + 1) * 4], y[r * 4:(r + 1) * 4]) for r in range(3)]
    share = np.float32(4 / 12)
    want = -((alone[0] * share + alone[1] * share) + alone[2] * share)
    assert np.array_equal(together.view(np.uint32), want.view(np.uint32))
    other_order = -((alone[2] * share + alone[1] * share) + alone[0] * share)
    assert not np.array_equal(together.view(np.uint32), other_order.view(np.uint32)), \
        "the data should tell the orders apart"


def test_bad_chips_are_refused_in_one_line():
    def one_line(error):
        assert "\n" not in str(error.value), str(error.value)
    with pytest.raises(ValueError, match="^mxu.Devices: chips must be at least 1, got 0$") as e:
        mxu.Devices(0, backend="model")
    with pytest.raises(ValueError, match="^mxu.Devices: 2 chips on the 'rtl' backend need "
                                         "worker processes") as e:
        mxu.Devices(2, backend="rtl", in_process=True)
    one_line(e)
    with pytest.raises(ValueError, match="^mxu.keras.DeviceStrategy: no chips") as e:
        mxu.keras.DeviceStrategy([])
    small, other = (mxu.Device(backend="model", device=d) for d in (DEVICE, "16x16"))
    with pytest.raises(ValueError, match="^mxu.keras.DeviceStrategy: mismatched chips: chip 1's "
                                         "device is '16x16', chip 0's '8x8'") as e:
        mxu.keras.DeviceStrategy([small, other])
    one_line(e)
    with pytest.raises(ValueError, match="chip 1 is an earlier chip again"):
        mxu.keras.DeviceStrategy([small, small])
    with pytest.raises(TypeError, match="need several chips"):
        mxu.keras.DeviceStrategy(small, link_bytes_per_cycle=8)
    with pytest.raises(ValueError, match="link_bytes_per_cycle"):
        mxu.keras.DeviceStrategy([small], link_bytes_per_cycle=0)


@pytest.mark.parametrize("fault", ["dies", "hangs"])
def test_a_chip_that_dies_or_hangs_stops_the_step_naming_it_and_every_worker(fault, tmp_path):
    chips = mxu.Devices(2, backend="model", device=DEVICE, timeout=60)
    strategy = mxu.keras.DeviceStrategy(chips)
    model = mlp(strategy)
    x, y = data(16)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)  # traced: the next steps run side by side
    chips.timeout = 3  # each call's: tiny products take milliseconds
    os.kill(chips.pids()[1], signal.SIGKILL if fault == "dies" else signal.SIGSTOP)
    what = r"died (before|during) gemm\w*" if fault == "dies" else r"did not answer gemm\w* in 3 s"
    checkpoint = tmp_path / "step.weights.h5"
    with pytest.raises(mxu.keras.DeviceOpError, match=rf"^mxu.jax: dot_general\(.*\) on the "
                       rf"device: mxu.Devices: chip 1 \(pid \d+.*\) {what}; every chip is "
                       rf"stopped$"):
        model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[
            keras.callbacks.ModelCheckpoint(str(checkpoint), save_weights_only=True,
                                            save_freq=1)])
    assert all(p.poll() is not None for p in chips._processes), "a worker was left behind"
    assert not checkpoint.exists(), "a checkpoint of the failed step was written"


def test_two_rtl_chips_give_the_model_chips_bits():
    """The RTL elaborates once a process: each chip is a worker of its own."""
    runs = {}
    for backend in ("model", "rtl"):
        with mxu.Devices(2, backend=backend, device="8x4-flush", timeout=120) as chips:
            strategy = mxu.keras.DeviceStrategy(chips, strict=True)
            model = mlp(strategy, dropout=0.2)
            x, y = data(16, seed=4)
            history = model.fit(x, y, batch_size=8, epochs=1, shuffle=False, verbose=0)
            runs[backend] = (bits(model), history.history["loss"],
                             [c["device_gemms"] for c in strategy.report()["chips"]])
    (w_model, l_model, g_model), (w_rtl, l_rtl, g_rtl) = runs["model"], runs["rtl"]
    assert g_model == g_rtl == [2 * 5, 2 * 5] and l_model == l_rtl
    assert all(np.array_equal(a, b) for a, b in zip(w_model, w_rtl))
