"""The ``balance-control`` command line: the top of the import graph.

It may import every other package (the engine ``bc_env.rules``, the environment, ``policies``, ``training``);
nothing imports it. Each command is one module in :mod:`balance_control.commands`.
"""

from bc_env import __version__

__all__ = ["__version__"]
