"""What to install for what: every message that tells a user to install something takes
its words from here, so the messages cannot drift apart.

Why two torch hints: a trained policy file plays on torch alone (``agents.network`` holds
the network; no stable-baselines3), so *playing* a trained policy -- an opponent, a deck
command's pilot, a search over one, the agents check -- needs torch only, while
*training* needs the ``train`` extra (stable-baselines3, sb3-contrib, TensorBoard).  Both
name the pinned CPU build of torch first, as README.md's set-up does, so that the extra's
``torch>=2.0`` finds it installed.  The other extras (``web``, ``ray``) are named by
``extra``; ``NATIVE_CORE`` says what building the optional C++ core needs.
"""
from __future__ import annotations

#: the torch README.md's set-up installs first
TORCH_PIN = "torch==2.13.0"

#: what playing a trained policy needs
PLAY_POLICIES = (f"to play trained policies: torch (pip install {TORCH_PIN}, as README.md "
                 f"installs it)")

#: what training needs
TRAIN = (f"to train: the train extra (pip install {TORCH_PIN} && "
         f"pip install -e \".[train]\")")


#: what building the optional native core needs (setup.py; without it: pure Python)
NATIVE_CORE = ("to build the native core: a C++17 compiler (g++ or clang++) and the Python "
               "headers, then reinstall (pip install -e .; in a source tree with pybind11 "
               "installed, python setup.py build_ext --inplace rebuilds it alone)")


def extra(name: str) -> str:
    """The command that installs extra ``name`` into this checkout: ``pip install -e
    ".[web]"``."""
    return f"pip install -e \".[{name}]\""


__all__ = ["NATIVE_CORE", "PLAY_POLICIES", "TORCH_PIN", "TRAIN", "extra"]
