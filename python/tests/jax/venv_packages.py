"""The PyPI packages of the venv (scripts/setup.sh installs them into .venv): a test run that
lacks one stops at once, failing with one line that names it (these tests never skip)."""
import sys

import pytest


def require(package, pin):
    """The module `package`, or the whole run stops (exit code 1) naming it and the fix."""
    try:
        module = __import__(package)
        if getattr(module, "__file__", None) is None:
            # These test folders are named after the packages: without the package, Python
            # finds the folder as a namespace package.
            raise ImportError(f"only the namespace package {list(module.__path__)}")
        return module
    except ImportError as e:
        pytest.exit(f"{package} is not installed for {sys.executable} ({e}): run "
                    f"scripts/setup.sh, which pip-installs {pin} into .venv, and run the tests "
                    "with .venv/bin/python", returncode=1)
