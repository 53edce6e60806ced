"""cmake --install into a fresh prefix, then import the installed package in
a clean environment (no CASEFILE_LIBRARY, no PYTHONPATH but the installed
folder): it must find <prefix>/<libdir>/libcasefile.so.0 by itself.

usage: install_check.py CMAKE BUILD_DIR PREFIX PYTHON_INSTALL_DIR
"""

import os
import shutil
import subprocess
import sys


def main():
    cmake, build_dir, prefix, python_dir = sys.argv[1:5]
    shutil.rmtree(prefix, ignore_errors=True)
    subprocess.run([cmake, "--install", build_dir, "--prefix", prefix], check=True,
                   stdout=subprocess.DEVNULL)
    package = os.path.join(prefix, python_dir, "casefile")
    for name in ("__init__.py", "_lib.py", "_install_layout.py"):
        if not os.path.isfile(os.path.join(package, name)):
            sys.exit("not installed: %s" % os.path.join(package, name))
    env = {k: v for k, v in os.environ.items()
           if k not in ("CASEFILE_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    env["PYTHONPATH"] = os.path.join(prefix, python_dir)
    probe = (
        "import casefile, os, sys\n"
        "path = os.path.realpath(casefile.library_path())\n"
        "prefix = os.path.realpath(sys.argv[1])\n"
        "assert path.startswith(prefix + os.sep), (path, prefix)\n"
        "assert os.path.dirname(casefile.__file__).startswith(prefix), casefile.__file__\n"
        "print(casefile.version(), path)\n"
    )
    # Run from the prefix so the source tree's package is not on sys.path.
    result = subprocess.run([sys.executable, "-c", probe, prefix], env=env, cwd=prefix,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(result.stdout, end="")
    if result.returncode != 0:
        sys.exit("the installed package did not load the installed library")
    shutil.rmtree(prefix, ignore_errors=True)


if __name__ == "__main__":
    main()
