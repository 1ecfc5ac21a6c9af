#!/usr/bin/env python3
"""One version (issue 58, item 16): the Python wheel's (python/packaging/mxu_build_backend.py)
is the CMake package's (mxuConfigVersion.cmake) and the pkg-config file's, all from
project(... VERSION) of CMakeLists.txt. No build: reads what CMake's configure step wrote.
  version_test.py BUILD_DIR SOURCE_DIR"""

import re
import sys
from pathlib import Path


def main() -> int:
    build, source = Path(sys.argv[1]), Path(sys.argv[2])
    sys.path.insert(0, str(source / "python" / "packaging"))
    import mxu_build_backend  # noqa: E402

    wheel = mxu_build_backend._version()
    config = (build / "cmake" / "mxuConfigVersion.cmake").read_text()
    cmake = re.search(r'set\(PACKAGE_VERSION "([^"]+)"\)', config).group(1)
    pc = re.search(r"^Version: (.+)$", (build / "cmake" / "mxu.pc").read_text(), re.M).group(1)
    if not wheel == cmake == pc:
        print(f"version_test: FAIL: wheel {wheel}, CMake package {cmake}, mxu.pc {pc}",
              file=sys.stderr)
        return 1
    print(f"version_test: {wheel} everywhere")
    return 0


if __name__ == "__main__":
    sys.exit(main())
