"""``balance-control legend``: what the codes of the text board mean."""

from __future__ import annotations

import argparse

from .common import legend_text, load_config

NAME = "legend"
HELP = "explain the codes of the text board (D52, h*-, Lo-, ..)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", default=None, help="only the tiles of this preset or file (default: all)")


def run(args: argparse.Namespace) -> int:
    print(legend_text(load_config(args.config) if args.config else None))
    return 0
