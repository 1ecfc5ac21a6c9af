"""The chips of a several-chip DeviceStrategy: one recorder each (its profile), the ring their
all-reduces are charged on, the threads the replicas wait on their chips in, and the step clock
(each step's busiest chip, for the run's time at Fmax)."""
import contextlib
from concurrent.futures import ThreadPoolExecutor

from mxu import _ring
from mxu._chips import Devices, run_side_by_side
from mxu._gemms import new_call
from mxu.jax._function import DeviceFunction, DeviceRecorder
from mxu.keras._columns import ColumnRecorder
from mxu.keras._replicas import ReplicaSteps

# What must match across the chips of one strategy (the replicas' bits and cycles).
_SAME = ("backend", "device", "array_rows", "array_cols", "pe_stages", "bus_bytes")


def chips_of(device, who):
    """The chips of `device` when it is several (mxu.Devices, a list or tuple of devices), or
    None when it is one device. Mismatched chips are refused before anything runs."""
    if not isinstance(device, (Devices, list, tuple)):
        return None
    chips = list(device)
    if not chips:
        raise ValueError(f"{who}: no chips (an empty {type(device).__name__})")
    for rank, chip in enumerate(chips):
        if not (callable(getattr(chip, "gemm", None)) and callable(getattr(chip, "info", None))):
            raise TypeError(f"{who}: chip {rank} must be an mxu.Device, got {chip!r}")
        if any(chip is other for other in chips[:rank]):
            raise ValueError(f"{who}: chip {rank} is an earlier chip again (one device, two "
                             f"replicas)")
    first = chips[0].info()
    for rank, chip in enumerate(chips[1:], 1):
        info = chip.info()
        differ = [k for k in _SAME if info.get(k) != first.get(k)]
        if differ:
            k = differ[0]
            raise ValueError(f"{who}: mismatched chips: chip {rank}'s {k} is {info.get(k)!r}, "
                             f"chip 0's {first.get(k)!r} (one strategy runs one device)")
    return chips


class ChipRecorder(DeviceRecorder):
    """A DeviceRecorder that also keeps its chip's cycles as one number (the step clock's)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cycles = 0

    def _record_batch(self, shapes, counters):
        super()._record_batch(shapes, counters)
        self.cycles += int(counters["cycles"])

    def run_product(self, gemm, primitive, module, phase):
        """One GEMM ((a, b, bias, c0, relu)) on the chip, counted in its report as a product of
        (primitive, module, phase): a slice of a product split over the chips."""
        with self._lock:
            self._call = new_call()
            try:
                out = self.runner.gemm_batch([gemm])[0]
            finally:
                counts, self._call = self._call, None
            self.report_data.add(primitive, module, phase, **counts)
        return out


class Chips:
    """A several-chip strategy's chips: one ChipRecorder each (options: the recorders'), the Ring
    (links: its settings), the threads that wait on the chips, and the run's clock."""

    def __init__(self, chips, options, links, who, pool=None):
        self.chips = chips
        self._pool = pool  # the mxu.Devices the chips are, if they are
        self.recorders = [ChipRecorder(chip, who=who, **options) for chip in chips]
        self.ring = _ring.Ring(len(chips), who=who, **links)
        self._threads = ThreadPoolExecutor(len(chips), thread_name_prefix="mxu-replica")
        self._steps = 0
        self._compute_cycles = 0  # each step's busiest chip, summed

    def __len__(self):
        return len(self.chips)

    def run(self, calls):
        try:
            return run_side_by_side(calls, self._threads)
        except KeyboardInterrupt:
            # The replicas' threads wait on their chips: ending the workers ends the waits, so
            # that the interpreter can exit (it joins the threads).
            if self._pool is not None:
                self._pool.close()
            raise

    @contextlib.contextmanager
    def step(self):
        """One step of the replicas: its busiest chip's cycles go to the run's clock."""
        before = [r.cycles for r in self.recorders]
        yield
        self._compute_cycles += max(r.cycles - b for r, b in zip(self.recorders, before))
        self._steps += 1

    def add_compute(self, cycles):
        """The busiest chip's cycles of one product split over the chips (model parallelism:
        the chips meet at every product)."""
        self._compute_cycles += int(cycles)

    def count_step(self):
        self._steps += 1

    def columns_of(self, model, step_function):
        """`step_function` with its products split over the chips by columns (the model's
        ColumnRecorder, made at its first step), each call counted as a step."""
        recorder = model.__dict__.get("_mxu_columns")
        if recorder is None:
            recorder = ColumnRecorder(self)
            object.__setattr__(model, "_mxu_columns", recorder)
        function = DeviceFunction(step_function, recorder)

        def step(*args, **kwargs):
            out = function(*args, **kwargs)
            self.count_step()
            return out
        return step

    def steps_of(self, model):
        """The model's ReplicaSteps, made at its first step."""
        steps = model.__dict__.get("_mxu_replica_steps")
        if steps is None:
            steps = ReplicaSteps(model, self)
            object.__setattr__(model, "_mxu_replica_steps", steps)
        return steps

    def report(self, node):
        reports = [r.report(node) for r in self.recorders]
        return _ring.report(reports, self.ring, self._compute_cycles, self._steps)
