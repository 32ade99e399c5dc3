"""nivel_env: rules engine and RL environment for the Nivel Arena trading card game."""
__version__ = "0.1.0"
