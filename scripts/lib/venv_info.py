"""What scripts/setup.sh asks the project's venv (run by the venv's own interpreter).
  venv_info.py version NAME   the installed version of distribution NAME, or nothing
  venv_info.py purelib        the venv's site-packages folder"""
import importlib.metadata
import sys
import sysconfig


def main(args):
    if args[:1] == ["version"] and len(args) == 2:
        try:
            print(importlib.metadata.version(args[1]))
        except importlib.metadata.PackageNotFoundError:
            pass
        return 0
    if args == ["purelib"]:
        print(sysconfig.get_path("purelib"))
        return 0
    print("venv_info.py: expects 'version NAME' or 'purelib'", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
