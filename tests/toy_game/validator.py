"""The toy game's validator: a report of one game naming its job, the environment and the
validation's environment variable (tests/toy_game/__init__.py)."""
from __future__ import annotations

import argparse
import json
import os
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("submission")
    p.add_argument("--repo", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--environment", required=True)
    p.add_argument("--job", required=True)
    args = p.parse_args()
    report = {"games": [{"job": args.job}], "environment": args.environment, "env": os.environ.get("TOY_VALIDATION"),
              "finished": os.path.isfile(args.submission)}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(report, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
