"""The scripts' command-line parser: a bad option or value is one line on stderr and exit status
2 (issue 58), where argparse would print its usage first; --help still prints the usage."""
import argparse


class OneLineParser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose errors are one line: "PROG: MESSAGE", exit 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message}\n")
