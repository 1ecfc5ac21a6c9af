"""Trains a small Keras MLP for some steps under mxu.keras.DeviceStrategy and prints one JSON
line: a digest of every weight's bits, the losses and the report's totals. test_backends.py runs
it once per backend (one device per process) and compares the digests."""
import argparse
import hashlib
import json
import os

os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402
import numpy as np  # noqa: E402

import mxu  # noqa: E402
import mxu.keras  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--steps", type=int, default=4)
    args = parser.parse_args()
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16 * args.steps, 24)).astype(np.float32)
    y = rng.integers(0, 5, len(x)).astype(np.int32)
    strategy = mxu.keras.DeviceStrategy(mxu.Device(backend=args.backend, device=args.device))
    with strategy.scope():
        model = keras.Sequential([keras.layers.Dense(12, activation="relu"),
                                  keras.layers.Dropout(0.2), keras.layers.Dense(5)])
        model.compile(optimizer="adam",
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, epochs=1, batch_size=16, shuffle=False, verbose=0)
    digest = hashlib.sha256()
    for w in model.weights:
        digest.update(np.asarray(w.numpy()).tobytes())
    print(json.dumps({"digest": digest.hexdigest(), "loss": history.history["loss"],
                      "totals": strategy.report()["totals"]}))


if __name__ == "__main__":
    main()
