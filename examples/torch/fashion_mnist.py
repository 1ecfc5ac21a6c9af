"""Fashion-MNIST from Debian's dataset-fashion-mnist: gzip-compressed IDX files read with NumPy.

load(samples=None, test_samples=None) returns (x_train, y_train, x_test, y_test): images as
float32 N x 1 x 28 x 28 in [0, 1], labels as int64. Nothing is downloaded.
"""
import gzip
import os

import numpy as np

DIR = "/usr/share/datasets/fashion-mnist"
PACKAGE = "dataset-fashion-mnist"


class DataError(Exception):
    """A missing or malformed data file; the message is one line naming the file."""


def _read_idx(path, ndim, count=None):
    """The first `count` items of an IDX file of unsigned bytes with `ndim` dimensions."""
    if not os.path.exists(path):
        raise DataError(f"{path} not found: install the Debian package {PACKAGE} "
                        f"(apt-get install {PACKAGE})")
    try:
        with gzip.open(path, "rb") as f:
            header = f.read(4 + 4 * ndim)
            if len(header) != 4 + 4 * ndim or header[:2] != b"\0\0" or header[2] != 0x08 \
                    or header[3] != ndim:
                raise DataError(f"{path}: not an IDX file of {ndim}-d unsigned bytes")
            dims = [int.from_bytes(header[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
            n = dims[0] if count is None else min(count, dims[0])
            item = int(np.prod(dims[1:], dtype=np.int64))
            data = f.read(n * item)
    except (OSError, EOFError) as e:
        raise DataError(f"{path}: {e}") from None
    if len(data) != n * item:
        raise DataError(f"{path}: truncated ({len(data)} of {n * item} bytes)")
    return np.frombuffer(data, np.uint8).reshape([n] + dims[1:])


def load(samples=None, test_samples=None, directory=DIR):
    """Train and test sets, the first `samples` / `test_samples` of each (None: all)."""
    def pair(prefix, count):
        images = _read_idx(os.path.join(directory, f"{prefix}-images-idx3-ubyte.gz"), 3, count)
        labels = _read_idx(os.path.join(directory, f"{prefix}-labels-idx1-ubyte.gz"), 1, count)
        if len(images) != len(labels):
            raise DataError(f"{directory}: {prefix} images and labels differ in count "
                            f"({len(images)} vs {len(labels)})")
        x = (images.astype(np.float32) / 255.0)[:, None, :, :]
        return x, labels.astype(np.int64)

    x_train, y_train = pair("train", samples)
    x_test, y_test = pair("t10k", test_samples)
    return x_train, y_train, x_test, y_test
