"""The scripts' command-line parser: a bad option or value is one line on stderr and exit status
2 (issue 58), where argparse would print its usage first; --help still prints the usage."""
import argparse


def positive_int(text):
    """An argument type: a whole number of at least 1, or the one-line error naming the text."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return value


class OneLineParser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose errors are one line: "PROG: MESSAGE", exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")
