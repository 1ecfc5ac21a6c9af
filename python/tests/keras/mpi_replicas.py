"""A small Keras MLP trained as 2 replicas on 2 chips, launched either way (--launcher local:
worker processes; mpi: the ranks of the mpirun job this runs in), printing one JSON line on rank
0: every weight's bits (hex), the losses and the report's chips, interconnect and step time.
test_mpi_chips.py runs it both ways and compares. --fault hang (die) stops (kills) chip 1's
worker between two GEMMs instead and prints the error the second raised; --pools opens pools
one after the other and prints what each did. Keras is imported after
mxu.Devices, so that the ranks that serve chips (which stop at that line) start quickly."""
import argparse
import json
import os
import signal

import numpy as np

import mxu


def train(chips):
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras
    import mxu.keras
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 20)).astype(np.float32)
    y = x[:, :3].argmax(1).astype(np.int32)
    strategy = mxu.keras.DeviceStrategy(chips, strict=True)
    with strategy.scope():
        model = keras.Sequential([keras.Input((20,)), keras.layers.Dense(16, activation="relu"),
                                  keras.layers.Dropout(0.2), keras.layers.Dense(3)])
        model.compile(optimizer="adam",
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    report = strategy.report()
    return {"weights": [w.numpy().tobytes().hex() for w in model.weights],
            "loss": history.history["loss"],
            "chips": [{k: c[k] for k in ("device_gemms", "device_macs", "device_cycles",
                                         "host_products", "energy_uj")}
                      for c in report["chips"]],
            "interconnect": report["interconnect"], "step_time": report["step_time"]}


def fault(chips, kind):
    a = np.ones((8, 8), np.float32)
    chips[1].gemm(a, a)
    chips.timeout = 3
    victim = chips.pids()[1]
    os.kill(victim, signal.SIGSTOP if kind == "hang" else signal.SIGKILL)
    try:
        chips[1].gemm(a, a)
        error = None
    except mxu.ChipError as exc:
        error = str(exc)
    return {"error": error, "victim": victim}


def pools(chips, launcher):
    """A second pool on the ranks the first one closed gives its bits; a third while the second
    is open, or in_process under MPI, is refused (the errors); a pool whose chips fail to open
    leaves the ranks to the next."""
    a = np.random.default_rng(1).standard_normal((8, 8)).astype(np.float32)
    first = chips[1].gemm(a, a)
    chips.close()
    again = mxu.Devices(2, backend="model", device="8x8", timeout=60, launcher=launcher)
    out = {"same": np.array_equal(first.view(np.uint32), again[1].gemm(a, a).view(np.uint32))}
    for key, options in (("third", {}), ("in_process", {"in_process": True})):
        try:
            mxu.Devices(1, backend="model", device="8x8", launcher=launcher, **options)
            out[key] = None
        except ValueError as exc:
            out[key] = str(exc)
    again.close()
    try:  # every chip fails to open, and the ranks serve the next pool
        mxu.Devices(2, backend="model", device="no-such", launcher=launcher)
    except ValueError as exc:
        out["bad_device"] = str(exc).split(":")[:3]
    out["after_bad"] = len(mxu.Devices(2, backend="model", device="8x8", launcher=launcher))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--launcher", choices=("local", "mpi"), required=True)
    parser.add_argument("--chips", type=int, default=2)
    parser.add_argument("--fault", choices=("hang", "die"))
    parser.add_argument("--pools", action="store_true")
    args = parser.parse_args()
    chips = mxu.Devices(args.chips, backend="model", device="8x8", timeout=60,
                        launcher=args.launcher)  # under mpirun, ranks 1.. stop here, serving
    if args.pools:
        out = pools(chips, args.launcher)
    else:
        out = fault(chips, args.fault) if args.fault else train(chips)
    chips.close()
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
