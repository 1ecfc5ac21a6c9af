"""A plain JAX training loop on Fashion-MNIST, every matrix product on the device.

An MLP 784-H-10 (ReLU) as a dict of arrays, softmax cross-entropy, jax.value_and_grad, and Adam
written out (no optax), all inside one jitted `train_step(params, opt_state, x, y)`; the step
and the evaluation are made device functions by mxu.jax.on_device, which runs their products
(forward and backward) on the device and everything else in XLA on the host.

  .venv/bin/python examples/jax/fashion_mlp.py --backend model
  .venv/bin/python examples/jax/fashion_mlp.py --backend host    # the same loop, plain JAX
"""
import time

import jax
import jax.numpy as jnp
import numpy as np

import common


def init(key, sizes):
    """He-initialized weights and zero biases, one (w, b) per layer."""
    params = []
    for key, (fan_in, fan_out) in zip(jax.random.split(key, len(sizes) - 1),
                                      zip(sizes[:-1], sizes[1:])):
        w = jax.random.normal(key, (fan_in, fan_out)) * jnp.sqrt(2.0 / fan_in)
        params.append({"w": w, "b": jnp.zeros(fan_out)})
    return params


def logits(params, x):
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits(params, x)), y[:, None], 1))


def adam(lr, b1=0.9, b2=0.999, eps=1e-7):
    """Adam (Kingma and Ba), as Keras's defaults: (init(params), update(grads, state, params))."""
    def init_state(params):
        zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
        return {"m": zeros, "v": zeros, "t": jnp.zeros((), jnp.int32)}

    def update(grads, state, params):
        t = state["t"] + 1
        m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, state["m"], grads)
        v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, state["v"], grads)
        step = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        params = jax.tree_util.tree_map(lambda p, m, v: p - step * m / (jnp.sqrt(v) + eps),
                                        params, m, v)
        return params, {"m": m, "v": v, "t": t}
    return init_state, update


def main():
    p = common.parser("jax_fashion_mlp", __doc__.splitlines()[0], epochs=2, batch=256)
    p.add_argument("--hidden", type=common.positive_int, default=128)
    p.add_argument("--lr", type=common.positive_float, default=1e-3)
    run = common.start(p)
    a = run.args
    x, y, xt, yt = run.fashion_mnist(flatten=True)
    opt_init, opt_update = adam(a.lr)

    @jax.jit
    def train_step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        params, opt_state = opt_update(grads, opt_state, params)
        return params, opt_state, loss

    @jax.jit
    def correct(params, x, y):
        return jnp.sum(jnp.argmax(logits(params, x), axis=1) == y)

    if run.dev is not None:
        import mxu.jax
        train_step = mxu.jax.on_device(train_step, run.dev)
        correct = mxu.jax.on_device(correct, run.dev, share=train_step)  # one report
    params = init(jax.random.PRNGKey(a.seed), [784, a.hidden, 10])
    opt_state = opt_init(params)
    rng = np.random.default_rng(a.seed)
    run.log(f"jax_fashion_mlp: {len(x)} train / {len(xt)} test images, batch {a.batch}, "
            f"{a.epochs} epochs, on {run.where()}")
    losses, epoch_s = [], []
    for epoch in range(a.epochs):
        start, total = time.perf_counter(), 0.0
        order = rng.permutation(len(x))
        for i in range(0, len(x), a.batch):
            idx = order[i:i + a.batch]
            params, opt_state, loss = train_step(params, opt_state, x[idx], y[idx])
            total += float(loss) * len(idx)
        losses.append(total / len(x))
        right = sum(int(correct(params, xt[i:i + a.batch], yt[i:i + a.batch]))
                    for i in range(0, len(xt), a.batch))
        epoch_s.append(round(time.perf_counter() - start, 3))
        run.log(f"epoch {epoch + 1}: loss {losses[-1]:.4f}  test {100 * right / len(xt):.2f}%  "
                f"{epoch_s[-1]:.1f} s")
    metrics = {"train_samples": len(x), "test_samples": len(xt), "epochs": a.epochs,
               "batch": a.batch, "first_train_loss": losses[0], "train_loss": losses[-1],
               "test_accuracy": right / len(xt), "epoch_s": epoch_s,
               "model": f"JAX MLP 784-{a.hidden}-10, hand-written Adam"}
    run.finish(metrics, train_step.report() if run.dev is not None else None)


if __name__ == "__main__":
    main()
