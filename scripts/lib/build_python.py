"""The Python a build's package was made for (Debian's, which has torch), as the build's CMake
cache names it: the benchmarks run examples and measurements under it, whatever interpreter runs
them; sys.executable when the cache names none."""
import os
import sys


def build_python(build):
    try:
        with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("MXU_PYTHON_EXECUTABLE:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return sys.executable
