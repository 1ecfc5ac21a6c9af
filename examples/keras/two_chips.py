"""A small Keras model trained as 2 replicas on 2 simulated chips: what each chip ran and what the
ring charged (docs/keras_jax.md, "Several chips"; the docs test runs it).

Dense(16, relu), Dense(3) on 20 features; 4 steps of a global batch of 32, 16 rows a replica.
Each chip is an mxu.Device in a worker process of its own (mxu.Devices); the gradients are
summed in rank order and charged as a ring all-reduce. --mpi makes the chips the ranks of the
mpirun job this runs in instead (rank 0 runs the program, ranks 1 and 2 are the chips, on this
machine or others): the same bits, the same output.

  PYTHONPATH=build/python .venv/bin/python examples/keras/two_chips.py
  mpirun -np 3 -x PYTHONPATH=build/python .venv/bin/python examples/keras/two_chips.py --mpi
"""
import argparse
import os

os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402
import numpy as np  # noqa: E402

import mxu  # noqa: E402
import mxu.keras  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpi", action="store_true",
                        help="the chips are the ranks 1 and 2 of mpirun's job (mpirun -np 3)")
    args = parser.parse_args()
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((128, 20)).astype(np.float32)
    y = x[:, :3].argmax(1).astype(np.int32)
    with mxu.Devices(2, backend="model", device="8x8",
                     launcher="mpi" if args.mpi else "local") as chips:
        strategy = mxu.keras.DeviceStrategy(chips)
        with strategy.scope():
            model = keras.Sequential([keras.Input((20,)),
                                      keras.layers.Dense(16, activation="relu"),
                                      keras.layers.Dense(3)])
            model.compile(optimizer="adam",
                          loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(x, y, batch_size=32, epochs=1, verbose=0)
        report = strategy.report()
    print(f"replicas {strategy.num_replicas_in_sync}")
    for chip in report["chips"]:
        forward = sum(e["device_macs"] for e in chip["ops"] if e["phase"] == "forward")
        print(f"chip {chip['rank']}: {chip['device_gemms']} GEMMs, {forward:,} forward MACs, "
              f"{chip['device_cycles']:,} cycles, {chip['host_products']} host products")
    link, step = report["interconnect"], report["step_time"]
    each = link["all_reduce_bytes"] // link["all_reduces"]
    print(f"all-reduces {link['all_reduces']} of {each:,} bytes: "
          f"{link['all_reduce_cycles']:,} cycles")
    print(f"{step['steps']} steps: busiest chip {step['compute_cycles']:,} + interconnect "
          f"{step['communication_cycles']:,} cycles, scaling efficiency "
          f"{100 * step['scaling_efficiency']:.1f}%")


if __name__ == "__main__":
    main()
