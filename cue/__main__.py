"""`cue` entry point."""
from __future__ import annotations


def main() -> None:
    from cue.cli.app import run

    run()


if __name__ == "__main__":
    main()
