"""What every example's command line shares, framework-free (the PyTorch examples' common.py
and the JAX and Keras examples' examples/jax/common.py): one-line errors and checked values."""
import argparse
import math
import sys


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: `NAME: error: MESSAGE` on stderr, exit code 2."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(2)


def _checked(kind, test, what):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not test(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
        return value
    return parse


positive_int = _checked(int, lambda v: v > 0, "a positive integer")
seed_int = _checked(int, lambda v: 0 <= v < 2**32, "a seed in [0, 2^32)")
positive_float = _checked(float, lambda v: math.isfinite(v) and v > 0, "a positive number")
probability = _checked(float, lambda v: 0 <= v < 1, "a probability in [0, 1)")
