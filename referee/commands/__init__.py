"""The subcommands of ``mjref``: each module has ``register(subparsers)`` and stays a thin face over library calls."""
