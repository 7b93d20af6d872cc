"""Stratified cross-validation folds of the benchmark, saved and reloaded by sample name (seed 000, §2.6.2, step 1)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..._errors import InputError, ReaderError, ShapeMismatchError
from ..._validation import check_positive_int
from .seeds import check_seed

__all__ = ["Folds", "make_folds", "check_class_sizes", "check_folds_cover_classes"]


@dataclass(frozen=True, eq=False)
class Folds:
    """An assignment of samples to cross-validation folds.

    Attributes
    ----------
    fold_of : numpy.ndarray of int64, shape (n_samples,)
        The fold (0 .. n_folds - 1) each sample is tested in.
    n_folds : int
    samples : numpy.ndarray of str, shape (n_samples,)
        Sample (cell) names, so that a saved split is matched to the data by
        name when reloaded.
    random_state : int or None
        The seed that made the split (None when loaded from a file that does
        not say).
    """

    fold_of: np.ndarray
    n_folds: int
    samples: np.ndarray
    random_state: int | None = None

    def train_indices(self, fold: int) -> np.ndarray:
        """Rows used to select and to train when testing on ``fold``."""
        return np.flatnonzero(self.fold_of != fold)

    def test_indices(self, fold: int) -> np.ndarray:
        """Rows of ``fold``."""
        return np.flatnonzero(self.fold_of == fold)

    def save(self, path) -> None:
        """Write the split as a CSV (``sample,fold``), atomically.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> from paucity.markers.benchmark import Folds, make_folds
        >>> folds = make_folds(["a", "b"] * 6, n_folds=3, random_state=0)
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "folds.csv"
        >>> folds.save(path)
        >>> Folds.load(path).fold_of.tolist() == folds.fold_of.tolist()
        True
        """
        from ...io import write_csv

        table = pd.DataFrame({"sample": self.samples, "fold": self.fold_of})
        write_csv(table, path, index=False)

    @classmethod
    def load(cls, path, *, samples=None) -> Folds:
        """Read a split written by :meth:`save`.

        The file is read by :func:`paucity.io.read_frame` (a ``.csv`` as
        :meth:`save` writes it, or another table format by its ending), the
        sample names as text, exactly as written: a name written with a
        leading ``'`` (paucity's CSV writer puts one before a name that starts
        with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is read
        without it, and ``NA`` or ``00024`` stay names.

        Parameters
        ----------
        path : str or path-like
        samples : sequence of str, optional
            The names of the data's samples: the split is reordered to them,
            and an error is raised when the file lists other samples.
        """
        from ...io import read_frame

        path = Path(path)
        if not path.is_file():
            raise ReaderError(f"folds file {path} does not exist.")
        table = read_frame(path, text_columns=["sample"])
        if list(table.columns[:2]) != ["sample", "fold"]:
            raise ReaderError(f"{path} is not a folds file: its columns must be 'sample,fold'.")
        fold = pd.to_numeric(table["fold"], errors="coerce")
        if fold.isna().any() or (fold < 0).any() or (fold % 1 != 0).any():
            raise ReaderError(f"{path}: the fold column must hold integers 0, 1, ...")
        fold_of = fold.to_numpy().astype(np.int64)
        names = table["sample"].astype(str).to_numpy()
        if samples is not None:
            samples = np.asarray(samples, dtype=str)
            position = pd.Index(names)
            if position.has_duplicates:
                raise ReaderError(f"{path} lists a sample more than once.")
            where = position.get_indexer(samples)
            if len(names) != len(samples) or (where < 0).any():
                missing = [str(name) for name in samples[where < 0][:3]]
                raise ShapeMismatchError(
                    f"{path} assigns {len(names)} samples to folds and the data has {len(samples)}"
                    + (f"; it does not list {', '.join(map(repr, missing))}" if missing else "")
                    + ". Use a folds file made for these data."
                )
            fold_of, names = fold_of[where], samples
        n_folds = int(fold_of.max()) + 1 if fold_of.size else 0
        if n_folds < 2 or len(np.unique(fold_of)) != n_folds:
            raise ReaderError(f"{path} must use every fold 0 .. k-1 with k >= 2; it uses {sorted(set(fold_of.tolist()))}.")
        return cls(fold_of=fold_of, n_folds=n_folds, samples=names)


def check_class_sizes(codes: np.ndarray, classes, n_folds: int) -> None:
    """Refuse, naming them, the classes with fewer members than folds."""
    sizes = np.bincount(codes, minlength=len(classes))
    smallest = int(np.argmin(sizes))
    if sizes[smallest] < n_folds:
        small = [f"{classes[t]!r} ({int(sizes[t])})" for t in np.flatnonzero(sizes < n_folds)]
        raise InputError(
            f"class {classes[smallest]!r} has {int(sizes[smallest])} member(s), fewer than the {n_folds} folds, so some "
            f"fold would have no {classes[smallest]!r} to test on or train with (classes below {n_folds}: "
            f"{', '.join(small)}). Use fewer folds, or drop or merge the small classes."
        )


def check_folds_cover_classes(folds: Folds, codes, classes) -> None:
    """Refuse a split (a loaded one, say) that leaves a class out of some fold's training rows."""
    for fold in range(folds.n_folds):
        present = np.unique(codes[folds.train_indices(fold)])
        if present.shape[0] < len(classes):
            missing = min(set(range(len(classes))) - set(present.tolist()))
            size = int(np.sum(codes == missing))
            raise InputError(
                f"class {classes[missing]!r} ({size} member(s)) has no member outside fold {fold}, so the methods "
                "could not learn it there; use a split with every class in every training set."
            )


def make_folds(labels, n_folds: int = 5, *, random_state=0, samples=None) -> Folds:
    """Split samples into stratified folds.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        The class of each sample; every class needs at least ``n_folds``
        members.
    n_folds : int, default=5
    random_state : int, numpy.random.Generator or None, default=0
        Seed of the shuffle; the same int and labels give the same folds. A
        Generator is drawn from once for an integer seed, and None draws one
        from fresh entropy (see :func:`~paucity.markers.benchmark.seeds.check_seed`);
        that integer is kept as :attr:`Folds.random_state`.
    samples : sequence of str, optional
        Sample names (default ``"0"``, ``"1"``, ...), kept for :meth:`Folds.save`.

    Returns
    -------
    Folds

    Raises
    ------
    InputError
        When a class has fewer members than folds (naming the class and its
        size), or a label is missing.
    ParameterError
        When ``random_state`` is a negative int, an int of 2**32 or more, or not a seed.

    Notes
    -----
    Seed 000, §2.6.2, step 1, with :class:`sklearn.model_selection.StratifiedKFold`
    (shuffled, seeded) so that each fold holds every class in proportion.

    Examples
    --------
    >>> from paucity.markers.benchmark import make_folds
    >>> folds = make_folds(["B"] * 6 + ["T"] * 9, n_folds=3, random_state=0)
    >>> [int((folds.fold_of == k).sum()) for k in range(3)]
    [5, 5, 5]
    >>> folds.test_indices(0).size + folds.train_indices(0).size
    15
    """
    from sklearn.model_selection import StratifiedKFold

    n_folds = check_positive_int(n_folds, "n_folds", minimum=2)
    random_state = check_seed(random_state)
    series = pd.Series(np.asarray(labels).ravel() if not isinstance(labels, pd.Series) else labels.to_numpy())
    if series.isna().any():
        raise InputError(f"labels has {int(series.isna().sum())} missing value(s); every sample needs a class to be put in a fold.")
    codes, classes = pd.factorize(series, sort=True)
    if len(classes) < 2:
        raise InputError("labels has one class only; at least 2 classes are needed for a classification benchmark.")
    check_class_sizes(codes, np.asarray(classes), n_folds)
    n = codes.shape[0]
    samples = np.arange(n).astype(str) if samples is None else np.asarray(samples, dtype=str)
    if samples.shape[0] != n:
        raise ShapeMismatchError(f"samples has {samples.shape[0]} names but labels has {n} entries.")
    fold_of = np.empty(n, dtype=np.int64)
    splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)
    for k, (_, test) in enumerate(splitter.split(np.zeros((n, 1)), codes)):
        fold_of[test] = k
    return Folds(fold_of=fold_of, n_folds=n_folds, samples=samples, random_state=random_state)
