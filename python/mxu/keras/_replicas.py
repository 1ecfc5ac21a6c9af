"""A Keras model's fit, evaluate and predict steps as replicas on several chips (data parallelism,
as TPUStrategy runs them on a TPU's cores).

Each step's global batch is split across the replicas as evenly as possible, in order (replica r
takes the r-th slice; with a batch that does not divide, the first ones take one row more, as
np.array_split cuts it; a replica with no rows sits the step out). Replica r runs the model's
own loss and gradient (JAXTrainer.compute_loss_and_updates under jax.value_and_grad) on its
slice, every product on chip r; the replicas run side by side, each in a thread of its own
waiting on its chip. The gradients, each scaled by its replica's share of the batch, are then
summed in rank order 0, 1, ..., N-1 (`mxu train`'s rule: the same bits whatever the timing) and
the optimizer applies them once; that sum is charged as a ring all-reduce of the gradients'
bytes. The loss is the replicas' losses summed the same way, the metrics are updated on the whole
batch (the replicas' predictions in order), and the non-trainable variables (BatchNorm's moving
statistics, dropout's seed) are replica 0's. Evaluation and prediction split the batch the same
way and move no gradients.

The replicas' functions are mxu.jax DeviceFunctions, one per chip (each traces and compiles once
per shape); the optimizer and metric update is one more, on chip 0 (it has no products).
"""
import functools
import operator

import jax
import numpy as np
from keras.src.trainers.data_adapters import data_adapter_utils

from mxu.jax._function import DeviceFunction


def shard_bounds(rows, replicas):
    """[(start, stop)] of each replica's slice of `rows` rows, as np.array_split cuts them."""
    base, extra = divmod(rows, replicas)
    bounds, start = [], 0
    for r in range(replicas):
        stop = start + base + (1 if r < extra else 0)
        bounds.append((start, stop))
        start = stop
    return bounds


def sum_in_rank_order(trees):
    """The leaves of `trees` (one per replica) added left to right: ((t0 + t1) + t2) + ..."""
    return jax.tree_util.tree_map(lambda *leaves: functools.reduce(operator.add, leaves), *trees)


def _rows(x):
    leaves = [leaf for leaf in jax.tree_util.tree_leaves(x) if leaf is not None]
    if not leaves:
        raise ValueError("mxu.keras: a step's data has no arrays to split across the replicas")
    return int(np.shape(leaves[0])[0])


def _slice(tree, start, stop):
    return jax.tree_util.tree_map(lambda a: np.asarray(a)[start:stop], tree)


def _concatenate(trees):
    return jax.tree_util.tree_map(lambda *parts: jax.numpy.concatenate(parts), *trees)


def _nbytes(tree):
    return sum(int(np.prod(np.shape(g))) * np.dtype(g.dtype).itemsize
               for g in jax.tree_util.tree_leaves(tree))


class ReplicaSteps:
    """The data-parallel train, test and predict steps of `model` on `chips` (the strategy's
    _Chips: recorders, ring, run)."""

    def __init__(self, model, chips):
        self.model = model
        self.chips = chips
        recorders = chips.recorders
        self._grads = [DeviceFunction(self._replica_gradients, r) for r in recorders]
        self._losses = [DeviceFunction(self._replica_loss, r) for r in recorders]
        self._predictions = [DeviceFunction(self._replica_predict, r) for r in recorders]
        self._apply = DeviceFunction(self._apply_gradients, recorders[0])
        self._metrics = DeviceFunction(self._update_metrics, recorders[0])
        self._traced = set()  # (kind, replica, shapes) already traced: those run side by side

    def step(self, kind):
        return {"train": self.train_step, "test": self.test_step,
                "predict": self.predict_step}[kind]

    # ---- the replicas' functions (traced by mxu.jax, products on the replica's chip) ----
    def _replica_gradients(self, trainable, non_trainable, metrics, optimizer, x, y, sample_weight,
                           share):
        gradient = jax.value_and_grad(self.model.compute_loss_and_updates, has_aux=True)
        (_, aux), grads = gradient(trainable, non_trainable, metrics, x, y, sample_weight,
                                   training=True, optimizer_variables=optimizer)
        unscaled_loss, y_pred, non_trainable, metrics = aux
        grads = jax.tree_util.tree_map(lambda g: g * share.astype(g.dtype), grads)
        return grads, unscaled_loss, y_pred, non_trainable, metrics

    def _replica_loss(self, trainable, non_trainable, metrics, x, y, sample_weight):
        _, aux = self.model.compute_loss_and_updates(trainable, non_trainable, metrics, x, y,
                                                     sample_weight, training=False)
        return aux

    def _replica_predict(self, trainable, non_trainable, x):
        kwargs = {"training": False} if self.model._call_has_training_arg else {}
        return self.model.stateless_call(trainable, non_trainable, x, **kwargs)

    # ---- after the replicas, on chip 0 ----
    def _apply_gradients(self, trainable, optimizer, metrics, grads, losses, shares, x, y, y_pred,
                         sample_weight):
        grads = sum_in_rank_order(grads)
        loss = functools.reduce(operator.add, [l * s for l, s in zip(losses, shares)])
        trainable, optimizer = self.model.optimizer.stateless_apply(optimizer, grads, trainable)
        logs, metrics = self.model._update_metrics_variables(metrics, loss, x, y,
                                                             _concatenate(y_pred), sample_weight)
        return logs, trainable, optimizer, metrics

    def _update_metrics(self, metrics, losses, shares, x, y, y_pred, sample_weight):
        loss = functools.reduce(operator.add, [l * s for l, s in zip(losses, shares)])
        return self.model._update_metrics_variables(metrics, loss, x, y, _concatenate(y_pred),
                                                    sample_weight)

    # ---- running them ----
    def _split(self, data, with_targets=True):
        x, y, sample_weight = data_adapter_utils.unpack_x_y_sample_weight(data)
        rows = _rows(x)
        bounds = [(r, a, b) for r, (a, b) in enumerate(shard_bounds(rows, len(self.chips)))
                  if b > a]
        shards = [(r, _slice(x, a, b), _slice(y, a, b), _slice(sample_weight, a, b),
                   np.float32((b - a) / rows)) for r, a, b in bounds]
        return (x, y, sample_weight), shards

    def _run(self, kind, shards, call):
        """call(shard) for every shard, side by side once each shape has been traced (tracing
        runs Keras's Python, one replica at a time)."""
        keys = [(kind, s[0], tuple(np.shape(leaf) for leaf in jax.tree_util.tree_leaves(s[1:4])))
                for s in shards]
        side_by_side = all(k in self._traced for k in keys)
        calls = [functools.partial(call, s) for s in shards]
        results = (self.chips.run(calls) if side_by_side else [c() for c in calls])
        self._traced.update(keys)
        return results

    def train_step(self, state, data):
        trainable, non_trainable, optimizer, metrics = state
        (x, y, sample_weight), shards = self._split(data)
        with self.chips.step():
            outs = self._run("train", shards, lambda s: self._grads[s[0]](
                trainable, non_trainable, metrics, optimizer, s[1], s[2], s[3], s[4]))
            grads = [o[0] for o in outs]
            self.chips.ring.all_reduce(_nbytes(grads[0]))
            logs, trainable, optimizer, metrics = self._apply(
                trainable, optimizer, outs[0][4], grads, [o[1] for o in outs],
                [s[4] for s in shards], x, y, [o[2] for o in outs], sample_weight)
        return logs, (trainable, outs[0][3], optimizer, metrics)

    def test_step(self, state, data):
        trainable, non_trainable, metrics = state
        (x, y, sample_weight), shards = self._split(data)
        with self.chips.step():
            outs = self._run("test", shards, lambda s: self._losses[s[0]](
                trainable, non_trainable, metrics, s[1], s[2], s[3]))
            logs, metrics = self._metrics(outs[0][3], [o[0] for o in outs],
                                          [s[4] for s in shards], x, y, [o[1] for o in outs],
                                          sample_weight)
        return logs, (trainable, outs[0][2], metrics)

    def predict_step(self, state, data):
        trainable, non_trainable = state
        _, shards = self._split(data)
        with self.chips.step():
            outs = self._run("predict", shards, lambda s: self._predictions[s[0]](
                trainable, non_trainable, s[1]))
        outputs = jax.tree_util.tree_map(lambda *parts: np.concatenate(parts),
                                         *[o[0] for o in outs])
        return outputs, (trainable, outs[0][1])
