"""`import mxu` under an interpreter that cannot load it fails with one line naming the fix.

The extensions are built for one Python (the build's: Debian's /usr/bin/python3) and need NumPy;
without the check, another interpreter reported a circular import, or nothing useful. Each case
imports a copy of the package's __init__.py in a child process, beside a stand-in extension file
(the check runs before any extension is loaded)."""
import os
import shutil
import subprocess
import sys
import sysconfig

import mxu


def _import_error(tmp_path, extension_name, code="import mxu"):
    package = tmp_path / "mxu"
    package.mkdir()
    shutil.copy(os.path.join(os.path.dirname(mxu.__file__), "__init__.py"), package)
    (package / extension_name).write_bytes(b"")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert result.returncode != 0, result.stdout
    return result.stderr.strip().splitlines()[-1]


def test_another_pythons_extension_names_the_interpreter_to_use(tmp_path):
    line = _import_error(tmp_path, "_mxu.cpython-399-x86_64-linux-gnu.so")
    assert line.startswith("ImportError: mxu: this build's extension is for "
                           "cpython-399-x86_64-linux-gnu, not for this Python "), line
    assert sys.executable in line and "/usr/bin/python3" in line, line


def test_missing_numpy_names_the_fix(tmp_path):
    line = _import_error(tmp_path, "_mxu" + sysconfig.get_config_var("EXT_SUFFIX"),
                         "import sys; sys.modules['numpy'] = None; import mxu")
    assert line.startswith("ImportError: mxu: needs NumPy, which this Python"), line
    assert "python3-numpy" in line, line
