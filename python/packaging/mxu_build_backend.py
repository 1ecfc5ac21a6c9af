"""The in-tree PEP 517 build backend of the `mxu` Python package (pyproject.toml names it).

`pip install /path/to/repository` builds a wheel here, offline and with the standard library only
(no build requirements): the project's own CMake configures the repository's build tree (build/,
as scripts/setup.sh does; only when it has no CMakeCache.txt yet), builds the package's targets
in it (mxu_python_package: the pure-Python files and one extension per built device, incremental)
and zips build/python/mxu/ into a wheel for the running interpreter. The extensions are built for
the python3 CMake found (Debian's /usr/bin/python3); a pip of another Python version is refused
on one line.

Another build tree: MXU_BUILD_DIR=DIR in the environment, or pip's --config-settings
build-dir=DIR.
"""
import base64
import hashlib
import importlib.machinery
import os
import re
import subprocess
import sys
import sysconfig
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "mxu"
TARGET = "mxu_python_package"
SUMMARY = "Driver of a hardware-accurate TPU-style bf16/fp32 matrix unit (RTL, model, golden model)"


class BuildError(RuntimeError):
    pass


def _version():
    """project(... VERSION x.y.z) of the top-level CMakeLists.txt: the one version, the CMake
    package's too. None there is an error, never a made-up version."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        text = f.read()
    project = re.search(r"\bproject\s*\(([^)]*)\)", text, re.IGNORECASE)
    version = project and re.search(r"\bVERSION\s+([0-9][0-9A-Za-z.]*)", project.group(1))
    if not version:
        raise BuildError("CMakeLists.txt: project() has no VERSION (the package's version)")
    return version.group(1)


def _tag():
    """cpXY-cpXY-PLATFORM of the running interpreter."""
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{python}-{python}-{platform}"


def _build_dir(config_settings):
    setting = (config_settings or {}).get("build-dir") or os.environ.get("MXU_BUILD_DIR")
    return os.path.abspath(setting) if setting else os.path.join(ROOT, "build")


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            f"Requires-Python: =={sys.version_info.major}.{sys.version_info.minor}.*\n"
            "Requires-Dist: numpy\n")


def _wheel_file():
    return (f"Wheel-Version: 1.0\nGenerator: {NAME} python/packaging/mxu_build_backend.py\n"
            f"Root-Is-Purelib: false\nTag: {_tag()}\n")


def _dist_info():
    return f"{NAME}-{_version()}.dist-info"


def _run(command):
    print("mxu build backend: " + " ".join(command), file=sys.stderr, flush=True)
    # The build's output goes to stderr: stdout may be the hook's channel to pip.
    result = subprocess.run(command, cwd=ROOT, stdout=sys.stderr, stderr=sys.stderr)
    if result.returncode != 0:
        raise BuildError(f"'{' '.join(command)}' failed (exit {result.returncode})")


def _build(build):
    """Configures (a new tree only) and builds the package; returns build/python/mxu."""
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        _run(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-Wno-dev"])
    _run(["cmake", "--build", build, "--target", TARGET])
    package = os.path.join(build, "python", NAME)
    extensions = [f for f in os.listdir(package) if f.startswith("_mxu") and f.endswith(".so")]
    if "__init__.py" not in os.listdir(package) or not extensions:
        raise BuildError(f"{package} holds no package after the build")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]  # ".cpython-311-x86_64-linux-gnu.so"
    for extension in extensions:
        if not extension.endswith(suffix):
            built = re.search(r"\.cpython-(\d)(\d+)", extension)
            built = f"Python {built.group(1)}.{built.group(2)}" if built else "another Python"
            raise BuildError(
                f"{os.path.join(package, extension)} is built for {built}, but pip runs Python "
                f"{sys.version_info.major}.{sys.version_info.minor} ({sys.executable}): install "
                f"with the pip of that Python (e.g. a venv made by /usr/bin/python3 -m venv)")
    return package


def _package_files(package):
    """(path in the wheel, file) of every file of the package, sorted; no bytecode."""
    files = []
    for dirpath, dirnames, filenames in os.walk(package):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for filename in sorted(filenames):
            if filename.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(dirpath, filename)
            files.append((NAME + "/" + os.path.relpath(path, package).replace(os.sep, "/"), path))
    return files


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _add(wheel, name, data, mode):
    """One member, compressed, with the file's permissions and a fixed date (reproducible)."""
    info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (mode | 0o100000) << 16
    wheel.writestr(info, data)


# ---- PEP 517 hooks ----

def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    directory = os.path.join(metadata_directory, _dist_info())
    os.makedirs(directory, exist_ok=True)
    for name, text in (("METADATA", _metadata()), ("WHEEL", _wheel_file())):
        with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
            f.write(text)
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = _build(_build_dir(config_settings))
    wheel_name = f"{NAME}-{_version()}-{_tag()}.whl"
    dist_info = _dist_info()
    record = []
    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path + ".part", "w") as wheel:
        for name, file in _package_files(package):
            with open(file, "rb") as f:
                data = f.read()
            _add(wheel, name, data, os.stat(file).st_mode & 0o777)
            record.append(_record_line(name, data))
        for name, text in (("METADATA", _metadata()), ("WHEEL", _wheel_file())):
            data = text.encode()
            _add(wheel, f"{dist_info}/{name}", data, 0o644)
            record.append(_record_line(f"{dist_info}/{name}", data))
        record.append(f"{dist_info}/RECORD,,")
        _add(wheel, f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode(), 0o644)
    os.replace(path + ".part", path)
    return wheel_name
