"""A small Keras CNN on Fashion-MNIST, every convolution and product on the device.

Conv2D(16, 3, same, relu), MaxPooling2D(2), Conv2D(32, 3, same, relu), MaxPooling2D(2), Flatten,
Dense(64, relu), Dense(10) (examples/torch/fashion_cnn.py's model); Adam lr 2e-3, batch 32,
1 epoch; the test set's accuracy after each epoch. The convolutions' backward passes reach the
device as convolutions too (other dimension numbers, dilations: docs/keras_jax.md).

  .venv/bin/python examples/keras/fashion_cnn.py --backend model --samples 6000
"""
import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fashion_mlp  # noqa: E402  (the epoch clock; it puts examples/jax on the path)

import common  # noqa: E402  (examples/jax/common.py)
import keras  # noqa: E402


def create_model():
    return keras.Sequential([
        keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Flatten(),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(10)])


def main():
    p = common.parser("fashion_cnn", __doc__.splitlines()[0], epochs=1, batch=32)
    p.add_argument("--lr", type=common.positive_float, default=2e-3)
    run = common.start(p)
    a = run.args
    x, y, xt, yt = run.fashion_mnist(flatten=False)
    strategy = None
    if run.dev is not None:
        import mxu.keras
        strategy = mxu.keras.DeviceStrategy(run.dev)
    run.log(f"fashion_cnn: {len(x)} train / {len(xt)} test images, batch {a.batch}, "
            f"{a.epochs} epochs, on {run.where()}")
    with strategy.scope() if strategy else contextlib.nullcontext():
        model = create_model()
        model.compile(optimizer=keras.optimizers.Adam(a.lr),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["sparse_categorical_accuracy"])
    clock = fashion_mlp.EpochClock(run)
    history = model.fit(x, y, epochs=a.epochs, batch_size=a.batch, validation_data=(xt, yt),
                        callbacks=[clock], verbose=0)
    metrics = {"train_samples": len(x), "test_samples": len(xt), "epochs": a.epochs,
               "batch": a.batch, "first_train_loss": history.history["loss"][0],
               "train_loss": history.history["loss"][-1],
               "test_loss": history.history["val_loss"][-1],
               "test_accuracy": history.history["val_sparse_categorical_accuracy"][-1],
               "epoch_s": clock.seconds,
               "model": "Keras CNN conv3x3-16 pool2 conv3x3-32 pool2 1568-64-10"}
    run.finish(metrics, strategy.report() if strategy else None)


if __name__ == "__main__":
    main()
