"""The tables of a clustering session, each a container built once by ``from_frame``: items, answers, pairs, gold pairs and example pairs.

Like :class:`~paucity.ranking.Comparisons` and :class:`~paucity.crowd.LabelMatrix`,
each table is checked once, when it is built from a pandas frame
(:func:`paucity._validation.check_columns` for its columns, which names the
options as a command line typed them); files reach them through
:func:`paucity.io.read_frame`, identifiers read as text (``00024`` stays
``00024``, ``NA`` is a name). A bad row is named by its data row, counted from
1 (the first row under the header, or of the frame).

- :class:`Items`: the item names of a session, with the text and image the annotation page shows;
- :class:`Answers`: answers to the pairs a session asked (an empty value: not answered yet);
- :class:`Pairs`: pairs of items (asks to withdraw);
- :class:`GoldPairs`: pairs whose answer is known;
- :class:`ExamplePairs`: pairs shown with the instructions, with the answer intended.

:func:`read_items`, :func:`read_answers` and :func:`read_pairs` read a file into them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._errors import InputError, InputTypeError
from .._validation import Instance, check_columns, check_parameter

__all__ = ["Items", "Answers", "Pairs", "GoldPairs", "ExamplePairs", "SCALE", "UNANSWERED", "read_items",
           "read_answers", "read_pairs", "refuse_repeated"]

#: The answer scale of the annotation page: keys 0 (not similar at all) to 9 (the same), a similarity of key / 9.
SCALE = 9
#: The text of a value cell that means "not answered yet" (besides an empty cell).
UNANSWERED = ("NA",)
_TEXT = Instance(str, description="a string")


def refuse_repeated(names: Sequence[str], where: str) -> None:
    """Refuse a name given twice: ``f"{where} {name!r} twice; every item needs its own name."``"""
    seen: set = set()
    for name in names:
        if name in seen:
            raise InputError(f"{where} {name!r} twice; every item needs its own name.")
        seen.add(name)


def _frame(df, what: str) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise InputTypeError(f"{what} must be a pandas DataFrame (a table with a header row), got {type(df).__name__}.")
    return df


def _names(column: pd.Series) -> np.ndarray:
    """A column of item names as text (None where missing), as an object array."""
    return np.array([None if name is None or (isinstance(name, float) and np.isnan(name)) or name is pd.NA
                     else str(name) for name in column.to_numpy(dtype=object)], dtype=object)


def _need_names(names: np.ndarray, where: np.ndarray, what: str, column, fix: str) -> None:
    missing = np.array([name is None for name in names], dtype=bool) & where
    if missing.any():
        row = int(np.flatnonzero(missing)[0]) + 1
        raise InputError(f"{what} has no item name in column {column!r}, data row {row}; {fix}.")


def _pair_names(df: pd.DataFrame, i, j, what: str) -> tuple[np.ndarray, np.ndarray]:
    """The two item columns of a table of pairs as text, every row naming both items."""
    first, second = _names(df[i]), _names(df[j])
    for names, column in ((first, i), (second, j)):
        _need_names(names, np.ones(len(names), dtype=bool), what, column, "name both items")
    return first, second


def _similarities(column: pd.Series, what: str, name, *, empty: bool) -> np.ndarray:
    """A value column as float64: numbers, NaN where the cell is empty or ``NA`` (refused unless ``empty``); any
    other text, and a number outside [0, 1], is refused naming its data row."""
    values = np.full(len(column), np.nan)
    for k, cell in enumerate(column.to_numpy(dtype=object)):
        if cell is None or cell is pd.NA or (isinstance(cell, float) and np.isnan(cell)):
            continue
        number = None
        if isinstance(cell, (bool, np.bool_)):
            number = None
        elif isinstance(cell, (int, float, np.integer, np.floating)):
            number = float(cell)
        else:
            text = str(cell).strip()
            if text == "" or text in UNANSWERED:
                continue
            try:
                number = float(text)
            except ValueError:
                number = None
        if number is None or np.isnan(number):
            raise InputError(
                f"{what} has {cell!r} in column {name!r}, data row {k + 1}; a similarity is a number in [0, 1] "
                "(leave the cell empty, or write NA, while the pair is not answered yet)."
            )
        values[k] = number
    if not empty and np.isnan(values).any():
        row = int(np.flatnonzero(np.isnan(values))[0]) + 1
        raise InputError(f"{what} has no value in column {name!r}, data row {row}; give the known similarity, in "
                         "[0, 1].")
    return values


def _answers_on_scale(column: pd.Series, what: str, name) -> np.ndarray:
    """A column of answers on the page's scale: whole numbers from 0 to :data:`SCALE`, refused otherwise."""
    answers = np.empty(len(column), dtype=np.int64)
    for k, cell in enumerate(column.to_numpy(dtype=object)):
        number = pd.to_numeric(pd.Series([cell], dtype=object), errors="coerce").iloc[0]
        if isinstance(cell, (bool, np.bool_)) or pd.isna(number) or number != int(number) or not 0 <= number <= SCALE:
            raise InputError(f"{what} has the answer {cell!r} in column {name!r}, data row {k + 1}; an answer is a "
                             f"whole number from 0 to {SCALE}.")
        answers[k] = int(number)
    return answers


@dataclass(frozen=True)
class Items:
    """The items of a session: their names, and what the annotation page shows of each.

    Attributes
    ----------
    names : tuple of str
    texts : tuple of (str or None), or None
        A text per item (the ``text`` column), or None when the table has none.
    images : tuple of (str or None), or None
        An image file per item (the ``image`` column, a file under the media folder), or None.
    """

    names: tuple
    texts: tuple | None = None
    images: tuple | None = None

    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, item=None, text=None, image=None, what: str = "the items table"):
        """Items from a table: the names in column ``item`` (the first column by default), the texts in ``text``
        and the images in ``image`` (the columns of those names, when the table has them).

        Examples
        --------
        >>> import pandas as pd
        >>> items = Items.from_frame(pd.DataFrame({"photo": ["a.jpg", "b.jpg"], "text": ["kitchen", None]}))
        >>> items.names, items.texts, items.images
        (('a.jpg', 'b.jpg'), ('kitchen', None), None)
        """
        df = _frame(df, "items")
        if df.shape[1] == 0:
            raise InputError(f"{what} has no columns; give a header row and the item names in its first column.")
        item = df.columns[0] if item is None else item
        check_columns(df, {"item": item, "text": text, "image": image}, what=what)
        names = _names(df[item])
        _need_names(names, np.ones(len(names), dtype=bool), what, item, "name every item")
        extra = {}
        for role, given, default in (("texts", text, "text"), ("images", image, "image")):
            column = given if given is not None else (default if default in df.columns else None)
            extra[role] = None if column is None else tuple(_names(df[column]))
        return cls(tuple(names), **extra)

    def __len__(self) -> int:
        return len(self.names)

    def to_frame(self) -> pd.DataFrame:
        """item, and text and image where the items have them."""
        frame = {"item": list(self.names)}
        if self.texts is not None:
            frame["text"] = list(self.texts)
        if self.images is not None:
            frame["image"] = list(self.images)
        return pd.DataFrame(frame)


@dataclass(frozen=True)
class Answers:
    """Answers to a session's pairs: the two items and the similarity of each, NaN for a row not answered yet.

    Attributes
    ----------
    i, j : ndarray of object
        The item names (None where a row not answered yet names none).
    value : ndarray of float64
        The similarity in [0, 1], or NaN: not answered yet (an empty cell, or ``NA``).
    """

    i: np.ndarray
    j: np.ndarray
    value: np.ndarray

    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, i="i", j="j", value="value", what: str = "answers") -> "Answers":
        """Answers from a table with the columns ``i``, ``j`` and ``value``.

        A value is a number (text that reads as one too); an empty cell, NaN
        or ``NA`` means not answered yet. Any other text (``nan``, ``?``) is
        refused naming its data row, rather than read as not answered. An
        answered row must name both items. Values are checked to lie in
        [0, 1] where they are recorded (:meth:`ClusteringSession.record`).

        Examples
        --------
        >>> import pandas as pd
        >>> answers = Answers.from_frame(pd.DataFrame({"i": ["a", "b"], "j": ["b", "c"], "value": [0.9, "NA"]}))
        >>> answers.value.tolist(), answers.answered.tolist()
        ([0.9, nan], [True, False])
        """
        df = _frame(df, "answers")
        check_columns(df, {"i": i, "j": j, "value": value}, what=what)
        values = _similarities(df[value], what, value, empty=True)
        first, second = _names(df[i]), _names(df[j])
        answered = ~np.isnan(values)
        for names, column in ((first, i), (second, j)):
            missing = np.array([name is None for name in names], dtype=bool) & answered
            if missing.any():
                row = int(np.flatnonzero(missing)[0]) + 1
                raise InputError(f"{what} answers data row {row} but names no item in column {column!r}; name both "
                                 "items.")
        return cls(first, second, values)

    def __len__(self) -> int:
        return len(self.value)

    @property
    def answered(self) -> np.ndarray:
        """Which rows hold an answer."""
        return ~np.isnan(self.value)

    def to_frame(self) -> pd.DataFrame:
        """i, j and value, indexed by the data row (from 1), named ``row``."""
        return pd.DataFrame({"i": self.i, "j": self.j, "value": self.value},
                            index=pd.RangeIndex(1, len(self) + 1, name="row"))


@dataclass(frozen=True)
class Pairs:
    """Pairs of items (asks to withdraw): the two item names of each.

    Attributes
    ----------
    i, j : ndarray of object
    """

    i: np.ndarray
    j: np.ndarray

    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, i="i", j="j", what: str = "pairs") -> "Pairs":
        """Pairs from a table with the columns ``i`` and ``j`` (other columns are not used); every row names both.

        Examples
        --------
        >>> import pandas as pd
        >>> Pairs.from_frame(pd.DataFrame({"i": ["a"], "j": ["b"], "value": [None]})).to_frame()
             i  j
        row      
        1    a  b
        """
        df = _frame(df, "pairs")
        check_columns(df, {"i": i, "j": j}, what=what)
        first, second = _pair_names(df, i, j, what)
        return cls(first, second)

    def __len__(self) -> int:
        return len(self.i)

    def to_frame(self) -> pd.DataFrame:
        """i and j, indexed by the data row (from 1), named ``row``."""
        return pd.DataFrame({"i": self.i, "j": self.j}, index=pd.RangeIndex(1, len(self) + 1, name="row"))


@dataclass(frozen=True)
class GoldPairs:
    """Pairs whose answer is known: the two items and the known similarity.

    Attributes
    ----------
    i, j : ndarray of object
    value : ndarray of float64
        The known similarity, in [0, 1].
    """

    i: np.ndarray
    j: np.ndarray
    value: np.ndarray

    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, i="i", j="j", value=None, answer=None,
                   what: str = "gold") -> "GoldPairs":
        """Gold pairs from a table with the columns ``i``, ``j`` and either ``value`` (a similarity in [0, 1]) or
        ``answer`` (a whole number from 0 to :data:`SCALE`, the page's keys, read as answer / 9).

        With neither named, the table's ``value`` column is read, else its ``answer`` column.

        Examples
        --------
        >>> import pandas as pd
        >>> GoldPairs.from_frame(pd.DataFrame({"i": ["a"], "j": ["b"], "answer": [9]})).value.tolist()
        [1.0]
        """
        df = _frame(df, "gold")
        if value is None and answer is None:
            value, answer = ("value", None) if "value" in df.columns or "answer" not in df.columns else (None, "answer")
        check_columns(df, {"i": i, "j": j, "value": value, "answer": answer}, what=what)
        first, second = _pair_names(df, i, j, what)
        if value is not None:
            values = _similarities(df[value], what, value, empty=False)
            outside = (values < 0) | (values > 1)
            if outside.any():
                row = int(np.flatnonzero(outside)[0])
                raise InputError(f"{what} has {float(values[row])!r} in column {value!r}, data row {row + 1}; a known "
                                 "similarity is in [0, 1].")
        else:
            values = _answers_on_scale(df[answer], what, answer) / SCALE
        same = first == second
        if same.any():
            row = int(np.flatnonzero(same)[0])
            raise InputError(f"{what} pairs {first[row]!r} with itself in data row {row + 1}; a gold pair is two items.")
        seen: dict[frozenset, int] = {}
        for row, pair in enumerate((frozenset(p) for p in zip(first, second)), start=1):
            if pair in seen:
                a, b = sorted(pair)
                raise InputError(f"{what} gives the pair ({a!r}, {b!r}) twice (data rows {seen[pair]} and {row}); a gold "
                                 "pair has one known answer: keep one row.")
            seen[pair] = row
        return cls(first, second, values)

    def __len__(self) -> int:
        return len(self.value)

    def to_frame(self) -> pd.DataFrame:
        """i, j and value."""
        return pd.DataFrame({"i": self.i, "j": self.j, "value": self.value})


@dataclass(frozen=True)
class ExamplePairs:
    """Pairs shown with the instructions: the two items, the answer intended (0 to 9), and a note.

    Attributes
    ----------
    i, j : ndarray of object
    answer : ndarray of int64
    note : tuple of (str or None)
    """

    i: np.ndarray
    j: np.ndarray
    answer: np.ndarray
    note: tuple

    @classmethod
    def from_frame(cls, df: pd.DataFrame, *, i="i", j="j", answer="answer", note=None,
                   what: str = "examples") -> "ExamplePairs":
        """Example pairs from a table with the columns ``i``, ``j``, ``answer`` and, optionally, ``note`` (the
        ``note`` column by default, when the table has one).

        Examples
        --------
        >>> import pandas as pd
        >>> ExamplePairs.from_frame(pd.DataFrame({"i": ["a"], "j": ["b"], "answer": [8]})).answer.tolist()
        [8]
        """
        df = _frame(df, "examples")
        check_columns(df, {"i": i, "j": j, "answer": answer, "note": note}, what=what)
        first, second = _pair_names(df, i, j, what)
        note = note if note is not None else ("note" if "note" in df.columns else None)
        notes = (None,) * len(df) if note is None else tuple(_names(df[note]))
        return cls(first, second, _answers_on_scale(df[answer], what, answer), notes)

    def __len__(self) -> int:
        return len(self.answer)


# -- the files ------------------------------------------------------------------------------------------------------
def _reader_spelling(columns):
    """A reader's messages name a column's role as its caller wrote it: ``i_column=`` (or, on a command line,
    the option the command spells it with)."""
    from .._spelling import option_spelling, spells

    return option_spelling({role: f"{role}_column=" for role in columns if not spells(role)})


def read_items(path, *, item_column: str | None = None) -> list[str]:
    """The item names of a table with a header row: the column ``item_column``, else the first; read as text.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "items.csv"
    >>> _ = path.write_text("photo,room\\n00024.jpg,kitchen\\nNA,hall\\n")
    >>> read_items(path)
    ['00024.jpg', 'NA']
    """
    from .. import io

    if item_column is not None:
        check_parameter(item_column, "item_column", [_TEXT], owner="read_items")
    frame = io.read_frame(path, text_columns=[0 if item_column is None else item_column])
    return list(Items.from_frame(frame, item=item_column, text=None, image=None, what=str(path)).names)


def read_answers(path, *, i_column: str = "i", j_column: str = "j", value_column: str = "value") -> pd.DataFrame:
    """Read answers: one row per answered pair, the two item names and the similarity.

    A row whose value is empty (or ``NA``) has not been answered yet; it is
    kept with value NaN (:meth:`ClusteringSession.record` skips it). Any
    other value must be a number: text such as ``nan``, ``none`` or ``?`` is
    refused, naming its row, rather than read as "not answered". (A
    parquet file's missing or NaN values are empty cells.) The pairs of
    :meth:`ClusteringSession.ask` written as a table (columns i, j, value) are
    read as they are once the value column is filled.

    Parameters
    ----------
    path : str or path-like
        A .csv/.tsv/.txt (optionally gzipped) or .parquet file with a header row.
    i_column, j_column, value_column : str
        The columns of the two items (read as text) and of the similarity.

    Returns
    -------
    pandas.DataFrame
        Columns i, j (str) and value (float64, NaN when empty), indexed by
        the data row number (from 1), named ``row``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "answers.csv"
    >>> _ = path.write_text("i,j,value\\n00024,NA,0.9\\nNA,b,\\n")
    >>> read_answers(path)
             i   j  value
    row                  
    1    00024  NA    0.9
    2       NA   b    NaN
    """
    from .. import io

    columns = {"i": i_column, "j": j_column, "value": value_column}
    for role, column in columns.items():
        check_parameter(column, f"{role}_column", [_TEXT], owner="read_answers")
    frame = io.read_frame(path, text_columns=list(columns.values()))
    with _reader_spelling(columns):
        return Answers.from_frame(frame, what=str(path), **columns).to_frame()


def read_pairs(path, *, i_column: str = "i", j_column: str = "j") -> pd.DataFrame:
    """Read a list of pairs of items: one row per pair, the two item names (other columns are not used).

    The asks file of :meth:`ClusteringSession.ask`, written as a table, is
    one; :meth:`ClusteringSession.withdraw` takes what this returns.

    Parameters
    ----------
    path : str or path-like
        A .csv/.tsv/.txt (optionally gzipped) or .parquet file with a header row and at least one row.
    i_column, j_column : str
        The columns of the two items (read as text).

    Returns
    -------
    pandas.DataFrame
        Columns i and j (str), indexed by the data row number (from 1), named ``row``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "pairs.csv"
    >>> _ = path.write_text("i,j,value\\n00024,NA,\\nb,00024,\\n")
    >>> read_pairs(path)
             i      j
    row              
    1    00024     NA
    2        b  00024
    """
    from .. import io

    columns = {"i": i_column, "j": j_column}
    for role, column in columns.items():
        check_parameter(column, f"{role}_column", [_TEXT], owner="read_pairs")
    frame = io.read_frame(path, text_columns=list(columns.values()))
    with _reader_spelling(columns):
        return Pairs.from_frame(frame, what=str(path), **columns).to_frame()
