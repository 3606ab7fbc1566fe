"""balance-control: rules engine (``bc_env.rules``) and RL environment for BALANCE // CONTROL."""

__version__ = "0.1.0"
