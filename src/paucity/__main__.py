"""``python -m paucity``: the ``paucity`` command line."""

from .cli import main

if __name__ == "__main__":
    main()
