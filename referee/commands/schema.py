"""``mjref schema log|tournament|rules|network``: print the JSON Schema of a file format."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any

# name -> (module, function returning the schema); tournaments add theirs when they exist.
SCHEMAS = {
    "log": ("referee.log", "log_schema"),
    "tournament": ("tournaments.config", "tournament_schema"),
    "rules": ("referee.rulesets", "families_schema"),  # every rule family's options, and the presets
    "network": ("wrappers.messages", "schema"),  # mjref serve's messages to wrappers and to the play page
}


def register(sub: Any, name: str, summary: str) -> None:
    p = sub.add_parser(name, help=summary)
    p.add_argument("what", choices=sorted(SCHEMAS), help="which format")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    module_name, func = SCHEMAS[args.what]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        print(f"mjref schema: {args.what}: not available in this version", file=sys.stderr)
        return 2
    print(json.dumps(getattr(module, func)(), indent=2))
    return 0
