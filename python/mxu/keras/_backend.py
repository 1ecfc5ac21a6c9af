"""Which backend Keras runs on, decided before Keras is imported: mxu.keras needs JAX.

Keras reads its backend from KERAS_BACKEND, else from keras.json in its home (KERAS_HOME, else
~/.keras, else /tmp/.keras), else it takes TensorFlow; and where there is no keras.json it
writes one naming TensorFlow (even under KERAS_BACKEND=jax), which the next process reads as a
choice. So the default that suits mxu, JAX, is written into the keras.json where there is none
yet (what Keras itself would write, naming JAX), and a choice of another backend, the user's,
is refused in one line naming the fix.

Standard library only: scripts/setup.sh also installs this file into the project's venv, with
a .pth line that makes JAX the default at the first `import keras` in any import order
(`python python/mxu/keras/_backend.py SITE_PACKAGES`: install_into).
"""
import os
import sys

BACKEND = "jax"


def keras_home():
    """The folder Keras keeps keras.json in, found as keras/src/backend/config.py finds it."""
    if "KERAS_HOME" in os.environ:
        return os.environ["KERAS_HOME"]
    base = os.path.expanduser("~")
    return os.path.join(base if os.access(base, os.W_OK) else "/tmp", ".keras")


def config_path():
    return os.path.expanduser(os.path.join(keras_home(), "keras.json"))


def configured():
    """(backend, what chose it): KERAS_BACKEND, keras.json, or None (Keras's own default,
    TensorFlow), in Keras's order."""
    import json  # here: at the venv's start only os and sys are imported
    if os.environ.get("KERAS_BACKEND"):
        return os.environ["KERAS_BACKEND"], "KERAS_BACKEND"
    path = config_path()
    try:
        with open(path) as f:
            config = json.load(f)
    except (OSError, ValueError):  # none, or unreadable: Keras takes its default
        return "tensorflow", None
    backend = config.get("backend") if isinstance(config, dict) else None
    return (backend, path) if backend else ("tensorflow", None)


def write_default():
    """Makes JAX the default where no keras.json chose a backend yet: Keras's keras.json naming
    JAX, created whole (never over another process's). Even under KERAS_BACKEND, as Keras would
    otherwise write one naming TensorFlow for the next process. Where it cannot be written,
    KERAS_BACKEND for this process, unless set."""
    path = config_path()
    if os.path.exists(path):
        return
    import json
    import tempfile
    config = {"floatx": "float32", "epsilon": 1e-07, "backend": BACKEND,
              "image_data_format": "channels_last"}  # Keras's defaults, but for the backend
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=".keras.json.", dir=os.path.dirname(path))
        try:
            with os.fdopen(fd, "w") as f:
                f.write(json.dumps(config, indent=4))
            os.chmod(temporary, 0o666 & ~_umask())
            os.link(temporary, path)  # fails where another process made one meanwhile
        finally:
            os.unlink(temporary)
    except FileExistsError:
        pass
    except OSError:
        if not os.environ.get("KERAS_BACKEND"):
            os.environ["KERAS_BACKEND"] = BACKEND


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check(backend=None):
    """ImportError in one line naming the fix, where Keras runs (`backend`, when it is already
    imported) or would run on another backend than JAX."""
    chosen, source = configured()
    if backend is not None and backend != chosen:  # Keras was imported under other settings
        source = None
    backend = backend or chosen
    if backend == BACKEND:
        return
    needs = "mxu.keras needs Keras on the JAX backend, but"
    if source == "KERAS_BACKEND":
        raise ImportError(f"{needs} KERAS_BACKEND selects {backend!r}: set KERAS_BACKEND=jax")
    if source:
        raise ImportError(f"{needs} {source} selects {backend!r}: set \"backend\": \"jax\" "
                          "there, or KERAS_BACKEND=jax")
    raise ImportError(f"{needs} Keras runs on {backend!r}: set KERAS_BACKEND=jax")


class _DefaultOnImport:
    """A finder that never finds anything: at the first import of keras it writes the default
    (write_default) and steps aside."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name == "keras":
            if cls in sys.meta_path:
                sys.meta_path.remove(cls)
            write_default()
        return None


def install_hook():
    """The venv's start-up hook (the .pth line): JAX the default at the first import of keras."""
    if "keras" not in sys.modules and _DefaultOnImport not in sys.meta_path:
        sys.meta_path.insert(0, _DefaultOnImport)


PTH_NAME = "mxu-keras-backend.pth"
MODULE_NAME = "mxu_keras_backend"


def install_into(site):
    """Copies this file into `site` (a venv's site-packages) as mxu_keras_backend.py, and the
    .pth line that installs the hook at every start of that venv's Python."""
    with open(__file__) as f:
        source = f.read()
    with open(os.path.join(site, MODULE_NAME + ".py"), "w") as f:
        f.write(source)
    with open(os.path.join(site, PTH_NAME), "w") as f:
        f.write(f"import {MODULE_NAME}; {MODULE_NAME}.install_hook()\n")


if __name__ == "__main__":
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit(f"usage: {sys.argv[0]} SITE_PACKAGES (a venv's site-packages folder)")
    install_into(sys.argv[1])
