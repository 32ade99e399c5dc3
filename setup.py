"""Builds the optional native core, ``nivel_env.native._core``, from
``nivel_env/native/src/core.cpp`` (pybind11, C++17).

Everything else about the package is declared in pyproject.toml; this file exists only for
the C++ extension.  The extension is optional: when it cannot be compiled (no C++ compiler,
no Python headers) the build says why and goes on, and the package installs and runs in
pure Python (``nivel_env.native.available()`` is then False and says why).

Developer loop: ``python setup.py build_ext --inplace`` rebuilds the module next to its
sources (pybind11 must be installed in the environment: ``pip install pybind11``); a plain
``pip install -e .`` does the same in an isolated build environment.

``NIVEL_NATIVE_SANITIZE=1`` builds with AddressSanitizer and UndefinedBehaviorSanitizer
(-O1 -g); Python must then load libasan first:
``LD_PRELOAD=$(g++ -print-file-name=libasan.so) ASAN_OPTIONS=detect_leaks=0 python ...``.
"""
from __future__ import annotations

import os
import sys
from glob import glob

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NAME = "nivel_env.native._core"
SOURCE = "nivel_env/native/src/core.cpp"
SANITIZE = os.environ.get("NIVEL_NATIVE_SANITIZE", "") not in ("", "0")


def warn(message: str) -> None:
    """A build-time warning that stands out in pip's verbose log and setup.py's output."""
    bar = "*" * 78
    print(f"\n{bar}\n{message}\n{bar}\n", file=sys.stderr, flush=True)


class OptionalBuildExt(build_ext):
    """build_ext that turns a failed compile of the native core into a warning: the
    install goes on in pure Python."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as err:      # no compiler at all: the distutils compiler setup fails
            self._skipped(err)

    def build_extension(self, ext) -> None:
        try:
            super().build_extension(ext)
        except Exception as err:      # the compiler or linker failed on this extension
            self._skipped(err)

    def _skipped(self, err: Exception) -> None:
        warn(f"nivel_env: the native core ({NAME}) was not built: "
             f"{type(err).__name__}: {err}\n"
             "The install goes on in pure Python (the Python engine; NIVEL_BACKEND=native "
             "will say it is unavailable).\nTo build it: install a C++17 compiler (g++ or "
             "clang++) and the Python headers, then reinstall (pip install -e .).")


def extensions() -> list[Extension]:
    if not os.path.exists(SOURCE):
        warn(f"nivel_env: {SOURCE} is missing; installing without the native core")
        return []
    compile_args = ["-O2"]
    link_args = []
    if SANITIZE:
        flags = "-fsanitize=address,undefined"
        compile_args = [flags, "-fno-omit-frame-pointer", "-g", "-O1", "-UNDEBUG"]  # asserts on
        link_args = [flags]
    depends = sorted(glob("nivel_env/native/src/*.h") + glob("nivel_env/native/src/*.hpp"))
    try:
        from pybind11.setup_helpers import Pybind11Extension
    except ImportError:
        warn("nivel_env: pybind11 is not installed in this build environment "
             "(pip install pybind11, or let pip's isolated build bring it); "
             "installing without the native core")
        return []
    return [Pybind11Extension(NAME, [SOURCE], cxx_std=17, depends=depends,
                              extra_compile_args=compile_args, extra_link_args=link_args,
                              optional=True)]


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
