"""The one progress-bar helper: a rich bar when asked for, nothing otherwise."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


class _Silent:
    def advance(self, steps: int = 1) -> None:
        pass

    def update(self, **kwargs) -> None:
        pass


class _Bar:
    def __init__(self, progress, task) -> None:
        self._progress = progress
        self._task = task

    def advance(self, steps: int = 1) -> None:
        self._progress.advance(self._task, steps)

    def update(self, **kwargs) -> None:
        self._progress.update(self._task, **kwargs)


@contextlib.contextmanager
def progress_bar(total: int | None, description: str, enabled: bool = False) -> Iterator[_Bar | _Silent]:
    """A context manager yielding an object with ``advance(n)``.

    Parameters
    ----------
    total : int or None
        Number of steps, or None when unknown.
    description : str
        Text shown before the bar.
    enabled : bool
        When False (the library default) nothing is drawn and nothing is imported.
    """
    if not enabled:
        yield _Silent()
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True) as progress:
        task = progress.add_task(description, total=total)
        yield _Bar(progress, task)
