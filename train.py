"""Self-play training with MaskablePPO.

Not available yet: training needs the PettingZoo/Gymnasium environment, which is
the next piece of work (see the project's issues). This script says so instead of
pretending to train.
"""
import sys

if __name__ == "__main__":
    sys.exit("train.py: training needs the environment (nivel_env.env), which is not built yet.")
