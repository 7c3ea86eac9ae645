"""``python -m core --list``: the games the toolkit knows, with their parameters."""
from __future__ import annotations

from base.cli import OneLineParser


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m core", description="The games of the toolkit.")
    parser.add_argument("--list", action="store_true", help="list the games with their parameters (the default)")
    parser.parse_args(argv)
    from core.games import describe

    print(describe())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
