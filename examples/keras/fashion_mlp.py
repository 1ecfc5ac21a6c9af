"""The guides' Keras program, unmodified, with every matrix product on the device.

create_model() is the guides' Sequential: Dense(512, relu), Dropout(0.2), Dense(10); Adam,
SparseCategoricalCrossentropy(from_logits=True) (its last layer has no softmax), batch 1024,
5 epochs, made inside the strategy's scope as the guides make it inside a TPUStrategy's.
Fashion-MNIST, flattened, from Debian's dataset-fashion-mnist instead of the download; the
test set's accuracy after each epoch (model.fit's validation), then model.evaluate.

  .venv/bin/python examples/keras/fashion_mlp.py --backend model
  .venv/bin/python examples/keras/fashion_mlp.py --backend model --chips 8   # 8 replicas
  .venv/bin/python examples/keras/fashion_mlp.py --backend host   # plain Keras on JAX, the CPU

--chips N runs the program as N replicas, one simulated chip each (mxu.Devices: a worker process
a chip), the only change being the line that makes the strategy, as on a TPU's cores;
--parallel model splits every Dense kernel by its output columns over the chips instead.
"""
import contextlib
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "jax"))
os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402

import common  # noqa: E402  (examples/jax/common.py)


def create_model():
    return keras.Sequential([
        keras.layers.Dense(512, activation="relu"),
        keras.layers.Dropout(0.2),
        keras.layers.Dense(10)])


class EpochClock(keras.callbacks.Callback):
    """Each epoch's wall time, training and the test set's evaluation together."""

    def __init__(self, run):
        super().__init__()
        self.run, self.seconds = run, []

    def on_epoch_begin(self, epoch, logs=None):
        self.start = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.seconds.append(round(time.perf_counter() - self.start, 3))
        self.run.log(f"epoch {epoch + 1}: loss {logs['loss']:.4f}  test "
                     f"{100 * logs['val_sparse_categorical_accuracy']:.2f}%  "
                     f"{self.seconds[-1]:.1f} s")


def main():
    p = common.parser("fashion_mlp", __doc__.splitlines()[0], epochs=5, batch=1024)
    p.add_argument("--mixed-bfloat16", action="store_true",
                   help="keras.mixed_precision.set_global_policy('mixed_bfloat16')")
    p.add_argument("--chips", type=common.positive_int, default=1,
                   help="replicas, one simulated chip (worker process) each (default: 1, the "
                        "device in this process)")
    p.add_argument("--parallel", choices=("data", "model"), default="data",
                   help="with --chips: replicas (data, default) or every Dense kernel split by "
                        "its output columns over the chips (model)")
    run = common.start(p)
    a = run.args
    if a.chips > 1 and run.dev is None:
        run.fail("--chips needs a device backend (--backend rtl|model|cross), not host")
    if a.parallel == "model" and a.chips == 1:
        run.fail("--parallel model needs --chips N (N >= 2)")
    x, y, xt, yt = run.fashion_mnist(flatten=True)
    if a.mixed_bfloat16:
        keras.mixed_precision.set_global_policy("mixed_bfloat16")
    strategy = None
    if run.dev is not None:
        import mxu.keras
        strategy = (mxu.keras.DeviceStrategy(run.dev) if a.chips == 1 else
                    mxu.keras.DeviceStrategy(mxu.Devices(a.chips, backend=a.backend,
                                                         device=a.device), parallel=a.parallel))
    run.log(f"fashion_mlp: {len(x)} train / {len(xt)} test images, batch {a.batch}, "
            f"{a.epochs} epochs, on {run.where()}"
            + (f", {a.chips} chips ({a.parallel} parallel)" if a.chips > 1 else ""))
    with strategy.scope() if strategy else contextlib.nullcontext():
        model = create_model()
        model.compile(optimizer="adam",
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["sparse_categorical_accuracy"])
    clock = EpochClock(run)
    history = model.fit(x, y, epochs=a.epochs, batch_size=a.batch, validation_data=(xt, yt),
                        callbacks=[clock], verbose=0)
    loss, accuracy = model.evaluate(xt, yt, batch_size=a.batch, verbose=0)
    metrics = {"train_samples": len(x), "test_samples": len(xt), "epochs": a.epochs,
               "batch": a.batch, "first_train_loss": history.history["loss"][0],
               "train_loss": history.history["loss"][-1], "test_loss": loss,
               "test_accuracy": accuracy, "epoch_s": clock.seconds,
               "model": "Keras Sequential Dense(512, relu), Dropout(0.2), Dense(10)"}
    report = strategy.report() if strategy else None
    if a.chips > 1:
        metrics["replicas"] = strategy.num_replicas_in_sync
        if a.json:  # each chip, the interconnect, the time at Fmax (docs/keras_jax.md)
            metrics.update({k: report[k] for k in ("chips", "interconnect", "step_time")})
        else:
            step = report["step_time"]
            run.log(f"  {a.chips} chips: busiest {step['compute_cycles']:,} cycles + "
                    f"interconnect {step['communication_cycles']:,}, scaling efficiency "
                    f"{100 * step['scaling_efficiency']:.1f}%")
    run.finish(metrics, report)


if __name__ == "__main__":
    main()
