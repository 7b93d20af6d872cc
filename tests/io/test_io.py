"""Tests of paucity.io: readers for every format, labels, errors, atomic writers, fuzzing."""

from __future__ import annotations

import doctest
import importlib
import functools
import gzip
import io as stdio
import tempfile
from pathlib import Path

import anndata
import matplotlib
import numpy as np
import pandas as pd
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import paucity.io
from paucity._errors import ParameterError, PaucityError, ReaderError, ShapeMismatchError
from paucity.io import atomic_path, read, read_frame, write_csv, write_figure, write_h5ad, write_text

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CELLS = ["c1", "c2", "c3"]
GENES = ["g1", "g2", "g3", "g4"]
VALUES = np.array([[0.0, 1.5, 0.0, 4.0], [2.0, 0.0, 0.0, 0.0], [0.0, 3.0, 7.0, 0.25]])


@pytest.fixture
def counts() -> pd.DataFrame:
    return pd.DataFrame(VALUES, index=CELLS, columns=GENES)


def assert_counts(adata: anndata.AnnData, *, cells=CELLS, genes=GENES) -> None:
    X = adata.X.toarray() if sp.issparse(adata.X) else adata.X
    np.testing.assert_array_equal(X, VALUES)
    assert list(adata.obs_names) == cells
    assert list(adata.var_names) == genes


def files_in(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --- round trips -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["m.csv", "m.tsv", "m.CSV", "m.csv.gz", "m.tsv.gz"])
def test_delimited_table_round_trip(tmp_path, counts, name):
    path = tmp_path / name
    counts.to_csv(path, sep="\t" if ".tsv" in name else ",")
    adata = read(path)
    assert_counts(adata)
    assert adata.X.dtype == np.float64 and not sp.issparse(adata.X)


@pytest.mark.parametrize("name", ["m.txt", "m.txt.gz"])
def test_whitespace_table_round_trip(tmp_path, name):
    lines = ["cell  " + " ".join(GENES)] + [f"{c}\t" + "  ".join(map(str, row)) for c, row in zip(CELLS, VALUES)]
    text = "\n".join(lines) + "\n"
    path = tmp_path / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    assert_counts(read(path))


def test_table_without_corner_name_and_integer_names(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("10,20\n1,5,6\n2,7,8\n")
    adata = read(path)
    assert list(adata.obs_names) == ["1", "2"] and list(adata.var_names) == ["10", "20"]
    np.testing.assert_array_equal(adata.X, [[5, 6], [7, 8]])


def test_parquet_round_trip_with_index(tmp_path, counts):
    counts.to_parquet(tmp_path / "m.parquet")
    assert_counts(read(tmp_path / "m.parquet"))


def test_parquet_round_trip_with_name_column(tmp_path, counts):
    counts.rename_axis("cell").reset_index().to_parquet(tmp_path / "m.parquet", index=False)
    assert_counts(read(tmp_path / "m.parquet"))


def test_parquet_all_numeric_keeps_every_column(tmp_path):
    pd.DataFrame({"a": [1, 2], "b": [3, 4]}).to_parquet(tmp_path / "m.parquet", index=False)
    adata = read(tmp_path / "m.parquet")
    assert list(adata.var_names) == ["a", "b"] and list(adata.obs_names) == ["0", "1"]


def test_h5ad_round_trip_keeps_sparse_and_obs(tmp_path):
    adata = anndata.AnnData(
        sp.csr_matrix(VALUES, dtype=np.float32),
        obs=pd.DataFrame({"group": ["a", "b", "a"]}, index=CELLS),
        var=pd.DataFrame(index=GENES),
    )
    write_h5ad(adata, tmp_path / "m.h5ad")
    back = read(tmp_path / "m.h5ad")
    assert_counts(back)
    assert sp.issparse(back.X) and list(back.obs["group"]) == ["a", "b", "a"]


@pytest.mark.parametrize("name", ["m.mtx", "m.mtx.gz"])
def test_mtx_round_trip(tmp_path, name):
    buffer = stdio.BytesIO()
    scipy.io.mmwrite(buffer, sp.coo_matrix(VALUES))
    path = tmp_path / name
    path.write_bytes(gzip.compress(buffer.getvalue()) if name.endswith(".gz") else buffer.getvalue())
    adata = read(path)
    assert_counts(adata, cells=["0", "1", "2"], genes=["0", "1", "2", "3"])
    assert adata.X.format == "csr" and adata.X.dtype == np.float32 and adata.X.nnz == 6


def test_mtx_transpose(tmp_path):
    scipy.io.mmwrite(tmp_path / "m.mtx", sp.coo_matrix(VALUES.T))
    adata = read(tmp_path / "m.mtx", transpose=True)
    assert adata.shape == (3, 4) and adata.X.format == "csr"
    np.testing.assert_array_equal(adata.X.toarray(), VALUES)


def test_dense_array_mtx_is_read_sparse(tmp_path):
    scipy.io.mmwrite(tmp_path / "m.mtx", VALUES)
    adata = read(tmp_path / "m.mtx")
    assert adata.X.format == "csr" and adata.X.nnz == 6


def write_10x(folder, *, gz=True, features_name="features.tsv", gene_names=GENES, n_barcodes=3):
    folder.mkdir()
    suffix = ".gz" if gz else ""

    def put(name, data: bytes):
        (folder / (name + suffix)).write_bytes(gzip.compress(data) if gz else data)

    buffer = stdio.BytesIO()
    scipy.io.mmwrite(buffer, sp.coo_matrix(VALUES.T))  # genes x cells
    put("matrix.mtx", buffer.getvalue())
    if features_name == "features.tsv":
        rows = [f"ENSG{i}\t{g}\tGene Expression" for i, g in enumerate(gene_names)]
    else:
        rows = list(gene_names)
    put(features_name, ("\n".join(rows) + "\n").encode())
    put("barcodes.tsv", ("\n".join(CELLS[:n_barcodes]) + "\n").encode())
    return folder


@pytest.mark.parametrize("gz", [True, False])
def test_10x_folder_round_trip(tmp_path, gz):
    adata = read(write_10x(tmp_path / "filtered", gz=gz))
    assert_counts(adata)
    assert adata.X.format == "csr" and adata.X.dtype == np.float32 and adata.X.nnz == 6
    assert list(adata.var["gene_ids"]) == ["ENSG0", "ENSG1", "ENSG2", "ENSG3"]
    assert set(adata.var["feature_types"]) == {"Gene Expression"}


def test_10x_folder_with_one_column_genes_file(tmp_path):
    adata = read(write_10x(tmp_path / "old", gz=False, features_name="genes.tsv"))
    assert_counts(adata)
    assert "gene_ids" not in adata.var


def test_10x_duplicate_gene_names_are_made_unique(tmp_path):
    adata = read(write_10x(tmp_path / "dup", gene_names=["A", "B", "A", "C"]))
    assert adata.var_names.is_unique and list(adata.var["gene_ids"]) == ["ENSG0", "ENSG1", "ENSG2", "ENSG3"]


def test_transpose_table(tmp_path, counts):
    counts.T.to_csv(tmp_path / "genes_by_cells.csv")
    assert_counts(read(tmp_path / "genes_by_cells.csv", transpose=True))


# --- labels ----------------------------------------------------------------------------


@pytest.fixture
def table(tmp_path, counts):
    counts.to_csv(tmp_path / "m.csv")
    return tmp_path / "m.csv"


@pytest.mark.parametrize(
    "text",
    ["cell,type\nc3,T\nc1,B\nc2,T\n", "c3,T\nc1,B\nc2,T\n", "B\nT\nT\n", "type\nB\nT\nT\n"],
    ids=["by-name-header", "by-name-no-header", "in-order", "in-order-header"],
)
def test_labels(tmp_path, table, text):
    (tmp_path / "labels.csv").write_text(text)
    adata = read(table, labels=tmp_path / "labels.csv")
    assert list(adata.obs["label"]) == ["B", "T", "T"]
    assert isinstance(adata.obs["label"].dtype, pd.CategoricalDtype)


def test_labels_column_picks_and_names_the_column(tmp_path, table):
    (tmp_path / "labels.tsv").write_text("cell\tbatch\tcelltype\nc1\tx\tB\nc2\ty\tT\nc3\tx\tT\n")
    adata = read(table, labels=tmp_path / "labels.tsv", labels_column="celltype")
    assert list(adata.obs["celltype"]) == ["B", "T", "T"] and "label" not in adata.obs


def test_labels_for_some_cells_leave_the_others_missing(tmp_path, table):
    (tmp_path / "labels.csv").write_text("cell,label\nc2,T\n")
    labels = read(table, labels=tmp_path / "labels.csv").obs["label"]
    assert labels.isna().tolist() == [True, False, True]


def test_labels_count_mismatch(tmp_path, table):
    (tmp_path / "labels.csv").write_text("B\nT\nT\nB\nB\n")
    with pytest.raises(ShapeMismatchError, match="has 5 rows .* but .* has 3 cells"):
        read(table, labels=tmp_path / "labels.csv")


def test_labels_unknown_cell(tmp_path, table):
    (tmp_path / "labels.csv").write_text("cell,label\nc1,B\nc9,T\n")
    with pytest.raises(ReaderError, match="1 cell.*not in.*'c9'"):
        read(table, labels=tmp_path / "labels.csv")


def test_labels_duplicate_cell(tmp_path, table):
    (tmp_path / "labels.csv").write_text("cell,label\nc1,B\nc1,T\n")
    with pytest.raises(ReaderError, match="'c1' more than once"):
        read(table, labels=tmp_path / "labels.csv")


def test_labels_column_missing(tmp_path, table):
    (tmp_path / "labels.csv").write_text("cell,label\nc1,B\n")
    with pytest.raises(ParameterError, match="'kind' is not a column.*'cell', 'label'"):
        read(table, labels=tmp_path / "labels.csv", labels_column="kind")


def test_labels_with_many_columns_need_labels_column(tmp_path, table):
    (tmp_path / "labels.csv").write_text("cell,a,b\nc1,B,x\n")
    with pytest.raises(ParameterError, match="3 columns; name the column that holds the labels"):
        read(table, labels=tmp_path / "labels.csv")


def test_labels_file_missing_or_unknown(tmp_path, table):
    with pytest.raises(ReaderError, match="does not exist"):
        read(table, labels=tmp_path / "nope.csv")
    (tmp_path / "labels.json").write_text("{}")
    with pytest.raises(ReaderError, match=r"unknown extension; expected \.csv"):
        read(table, labels=tmp_path / "labels.json")


# --- reader errors ------------------------------------------------------------------------


def test_missing_file(tmp_path):
    with pytest.raises(ReaderError, match="does not exist"):
        read(tmp_path / "absent.csv")


@pytest.mark.parametrize("name", ["e.csv", "e.h5ad", "e.mtx", "e.parquet"])
def test_empty_file(tmp_path, name):
    (tmp_path / name).touch()
    with pytest.raises(ReaderError, match="is empty"):
        read(tmp_path / name)


def test_unknown_extension_lists_the_supported(tmp_path):
    (tmp_path / "m.xlsx").write_text("x")
    with pytest.raises(ReaderError, match=r"unknown extension.*\.h5ad.*\.parquet or a 10x folder"):
        read(tmp_path / "m.xlsx")


def test_non_numeric_column_is_named(tmp_path):
    (tmp_path / "m.csv").write_text(",g1,cluster\nc1,1,T\nc2,2,B\n")
    with pytest.raises(ReaderError, match="column 'cluster' holds non-numeric values \\(e.g. 'T' in row 'c1'\\)"):
        read(tmp_path / "m.csv")


def test_non_numeric_parquet_column_is_named(tmp_path):
    pd.DataFrame({"g1": [1, 2], "tags": [["a"], ["b"]]}, index=["c1", "c2"]).to_parquet(tmp_path / "m.parquet")
    with pytest.raises(ReaderError, match="column 'tags'"):
        read(tmp_path / "m.parquet")


def test_ragged_long_row(tmp_path):
    (tmp_path / "m.csv").write_text(",g1,g2\nc1,1,2\nc2,3,4,5\n")
    with pytest.raises(ReaderError, match="m.csv.*Expected 3 fields"):
        read(tmp_path / "m.csv")


def test_ragged_short_row(tmp_path):
    (tmp_path / "m.csv").write_text(",g1,g2\nc1,1,2\nc2,3\n")
    with pytest.raises(ReaderError, match="missing value.*row 'c2', column 'g2'.*ragged"):
        read(tmp_path / "m.csv")


def test_header_only(tmp_path):
    (tmp_path / "m.csv").write_text(",g1,g2\n")
    with pytest.raises(ReaderError, match="no rows"):
        read(tmp_path / "m.csv")


def test_wrong_separator(tmp_path, counts):
    counts.to_csv(tmp_path / "m.csv", sep="\t")
    with pytest.raises(ReaderError, match="no data columns.*separator"):
        read(tmp_path / "m.csv")


def test_garbled_binary_table(tmp_path):
    (tmp_path / "m.csv").write_bytes(b"\xff\xfe\x00\x81garbage\x00")
    with pytest.raises(ReaderError, match="m.csv"):
        read(tmp_path / "m.csv")


@pytest.mark.parametrize("name, what", [("m.h5ad", "h5ad"), ("m.parquet", "parquet"), ("m.mtx", "Matrix Market")])
def test_garbled_binary_formats(tmp_path, name, what):
    (tmp_path / name).write_text("this is not the format\n")
    with pytest.raises(ReaderError, match=f"could not read .*{name} as an? {what}"):
        read(tmp_path / name)


def test_truncated_mtx(tmp_path):
    (tmp_path / "m.mtx").write_text("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 5\n")
    with pytest.raises(ReaderError, match="m.mtx.*Truncated"):
        read(tmp_path / "m.mtx")


@pytest.mark.parametrize("name", ["m.mtx", "m.mtx.gz"])
def test_mtx_cut_off_in_an_exponent_does_not_crash(tmp_path, name):
    # scipy's parser segfaults on this input unless it ends with a newline
    data = b"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5E-"
    (tmp_path / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    try:
        read(tmp_path / name)
    except PaucityError:
        pass


def test_mtx_with_a_nul_byte(tmp_path):
    # scipy's parser segfaults on a NUL byte inside a line
    (tmp_path / "m.mtx").write_bytes(b"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 3\x00\n2 2 3\n")
    with pytest.raises(ReaderError, match="m.mtx holds a NUL byte"):
        read(tmp_path / "m.mtx")


def test_mtx_with_absurd_dimensions(tmp_path):
    (tmp_path / "m.mtx").write_text("%%MatrixMarket matrix coordinate real general\n99999999999 99999999999 0\n")
    with pytest.raises(ReaderError, match="m.mtx"):
        read(tmp_path / "m.mtx")


def test_complex_mtx(tmp_path):
    (tmp_path / "m.mtx").write_text("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 5 1\n")
    with pytest.raises(ReaderError, match="complex"):
        read(tmp_path / "m.mtx")


def test_folder_that_is_not_10x(tmp_path):
    (tmp_path / "plain").mkdir()
    with pytest.raises(ReaderError, match="not a 10x folder.*matrix.mtx"):
        read(tmp_path / "plain")


def test_10x_folder_missing_barcodes(tmp_path):
    folder = write_10x(tmp_path / "x")
    (folder / "barcodes.tsv.gz").unlink()
    with pytest.raises(ReaderError, match="no barcodes.tsv"):
        read(folder)


def test_10x_folder_whose_files_disagree(tmp_path):
    with pytest.raises(ReaderError, match="3 cells but barcodes.tsv.gz lists 2"):
        read(write_10x(tmp_path / "x", n_barcodes=2))


# --- atomic writers ------------------------------------------------------------------------


def test_atomic_path_is_a_sibling_with_the_same_suffixes(tmp_path):
    target = tmp_path / "out.csv.gz"
    with atomic_path(target) as tmp:
        assert tmp.parent == tmp_path and tmp.name.endswith(".csv.gz") and not tmp.exists()
        tmp.write_bytes(b"x")
        assert not target.exists()
    assert files_in(tmp_path) == ["out.csv.gz"]


def test_atomic_path_leaves_nothing_and_keeps_the_old_file_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("boom")
    assert files_in(tmp_path) == ["out.txt"] and target.read_text() == "old"


def test_writers_write(tmp_path, counts):
    write_csv(counts, tmp_path / "m.csv.gz")
    assert_counts(read(tmp_path / "m.csv.gz"))
    write_text("héllo", tmp_path / "t.md")
    assert (tmp_path / "t.md").read_text(encoding="utf-8") == "héllo"
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    write_figure(fig, tmp_path / "f.pdf")
    plt.close(fig)
    assert (tmp_path / "f.pdf").read_bytes().startswith(b"%PDF")
    assert files_in(tmp_path) == ["f.pdf", "m.csv.gz", "t.md"]


def _unsavable_figure():
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    ax.xaxis.set_major_formatter(lambda value, position: 1 / 0)
    return fig


def _raise(value):
    raise RuntimeError("cannot format")


@pytest.mark.parametrize(
    "name, write, error",
    [
        ("out.csv", lambda path: write_csv(pd.DataFrame({"a": [1.5]}), path, float_format=_raise), RuntimeError),
        ("out.txt", lambda path: write_text(b"bytes are not text", path), TypeError),
        ("out.h5ad", lambda path: write_h5ad(anndata.AnnData(np.ones((1, 1)), uns={"bad": object()}), path), Exception),
        ("out.png", lambda path: write_figure(_unsavable_figure(), path), ZeroDivisionError),
    ],
    ids=["csv", "text", "h5ad", "figure"],
)
def test_failing_writers_leave_nothing_behind(tmp_path, name, write, error):
    (tmp_path / "keep.txt").write_text("unrelated")
    with pytest.raises(error):
        write(tmp_path / name)
    plt.close("all")
    assert files_in(tmp_path) == ["keep.txt"]


@pytest.mark.parametrize("module", ["files", "tables", "matrices"])
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(f"paucity.io.{module}"), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# --- fuzzing --------------------------------------------------------------------------------


@functools.cache
def _valid_bytes(ending: str) -> bytes:
    """A small valid file of the given kind, as bytes."""
    frame = pd.DataFrame(VALUES, index=CELLS, columns=GENES)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"valid{ending}"
        if ending == ".parquet":
            frame.to_parquet(path)
        elif ending == ".mtx":
            scipy.io.mmwrite(path, sp.coo_matrix(VALUES))
        elif ending == ".h5ad":
            anndata.AnnData(frame).write_h5ad(path)
        else:
            frame.to_csv(path, sep="\t" if ending == ".tsv" else ",")
        return path.read_bytes()


ENDINGS = [".csv", ".tsv", ".mtx", ".h5ad", ".parquet"]


@st.composite
def corrupted(draw, ending: str) -> bytes:
    """A valid file truncated and with a few bytes overwritten."""
    data = bytearray(_valid_bytes(ending))
    data = data[: draw(st.integers(1, len(data)))]
    for _ in range(draw(st.integers(0, 3))):
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data)


def contents(ending: str):
    return st.one_of(
        st.binary(max_size=200),
        st.text(max_size=200).map(lambda text: text.encode("utf-8", "surrogatepass")),
        st.text(alphabet=",\t\n 0123456789.-eE%abc\"", max_size=200).map(str.encode),
        corrupted(ending),
    )


@pytest.mark.parametrize("ending", ENDINGS)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_files_read_or_raise_a_paucity_error(tmp_path, ending, data):
    path = tmp_path / f"fuzz{ending}"
    path.write_bytes(data.draw(contents(ending), label="content"))
    try:
        adata = read(path)
    except PaucityError:
        return
    assert isinstance(adata, anndata.AnnData)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet="c123,\tTB\n \"", max_size=60))
def test_fuzzed_labels_read_or_raise_a_paucity_error(tmp_path, text):
    pd.DataFrame(VALUES, index=CELLS, columns=GENES).to_csv(tmp_path / "m.csv")
    (tmp_path / "labels.csv").write_text(text)
    try:
        adata = read(tmp_path / "m.csv", labels=tmp_path / "labels.csv")
    except PaucityError:
        return
    assert len(adata.obs["label"]) == 3


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet="abxy01,\t\n \"-.", max_size=80))
def test_fuzzed_comparison_tables_rank_or_raise_a_paucity_error(tmp_path, text):
    """A comparisons table goes through read_frame and Comparisons: a ranking or a paucity error, nothing else."""
    from paucity.ranking import Comparisons, rank

    path = tmp_path / "games.csv"
    path.write_text("home,away,winner\n" + text)
    try:
        frame = read_frame(path)
        comparisons = Comparisons.from_dataframe(frame, i="home", j="away", winner="winner")
        table = rank(comparisons, "rank_centrality", regularization="uniform").to_frame()
    except PaucityError:
        return
    assert len(table) == comparisons.n_items
    assert np.isclose(table["score"].sum(), 1.0)


# --- identifiers as text, duplicate headers, output paths ----------------------------------------


def test_identifier_columns_are_read_as_written(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text("home,away,winner,score\n00024,24,00024,1.5\nNA,null,NA,NA\n3,00003,3,\n")
    frame = read_frame(path, text_columns=["home", "away", "winner"])
    assert frame["home"].tolist() == ["00024", "NA", "3"]
    assert frame["away"].tolist() == ["24", "null", "00003"]
    assert frame["score"].isna().tolist() == [False, True, True]  # other columns: pandas' missing markers
    assert frame["score"].iloc[0] == 1.5


def test_empty_identifier_is_missing(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text("home,away\nA,\n")
    frame = read_frame(path, text_columns=["home", "away"])
    assert frame["away"].isna().tolist() == [True]


@pytest.mark.parametrize("name", ["dup.csv", "dup.tsv"])
def test_duplicate_column_names_are_refused(tmp_path, name):
    sep = "\t" if name.endswith(".tsv") else ","
    path = tmp_path / name
    path.write_text(sep.join(["cell", "sepal_length_(cm)", "sepal_length_(cm)"]) + "\n" + sep.join(["c1", "1", "2"]) + "\n")
    with pytest.raises(ReaderError, match="two columns named 'sepal_length_\\(cm\\)'"):
        read_frame(path)
    with pytest.raises(ReaderError, match="two columns named"):
        read(path)


def test_duplicate_parquet_columns_are_refused(tmp_path):
    path = tmp_path / "dup.parquet"
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_arrays([pa.array([1.0]), pa.array([2.0])], names=["a", "a"]), path)
    with pytest.raises(ReaderError, match="dup.parquet"):  # refused by the parquet reader itself, naming the file
        read_frame(path)


def test_cell_names_are_text_and_match_their_labels(tmp_path):
    (tmp_path / "m.csv").write_text("cell,g1,g2\n0000,1,2\n0001,3,4\nNA,5,6\n")
    (tmp_path / "labels.csv").write_text("cell,type\n0001,B\n0000,T\nNA,T\n")
    adata = read(tmp_path / "m.csv", labels=tmp_path / "labels.csv")
    assert list(adata.obs_names) == ["0000", "0001", "NA"]
    assert list(adata.obs["label"]) == ["T", "B", "T"]


def test_label_named_na_is_a_label(tmp_path, table):
    (tmp_path / "labels.csv").write_text("NA\nT\nNA\n")
    adata = read(table, labels=tmp_path / "labels.csv", labels_header=False)
    assert list(adata.obs["label"]) == ["NA", "T", "NA"]


def test_labels_header_is_explicit_when_asked(tmp_path, table):
    (tmp_path / "labels.csv").write_text("type\nB\nT\n")
    with pytest.raises(ShapeMismatchError, match="has 2 labels but .* has 3 cells"):
        read(table, labels=tmp_path / "labels.csv", labels_header=True)
    (tmp_path / "labels.csv").write_text("B\nT\nT\n")
    adata = read(table, labels=tmp_path / "labels.csv", labels_header=False)
    assert list(adata.obs["label"]) == ["B", "T", "T"]
    # the rule without a flag: one row more than cells is a header, as many rows as cells is none
    (tmp_path / "labels.csv").write_text("type\nB\nT\nT\n")
    assert list(read(table, labels=tmp_path / "labels.csv").obs["label"]) == ["B", "T", "T"]


def test_check_output_path(tmp_path):
    from paucity.io import check_output_path

    assert check_output_path(tmp_path / "out.json", option="--out") == tmp_path / "out.json"
    with pytest.raises(ParameterError, match="--out .* is a folder"):
        check_output_path(tmp_path, option="--out")
    with pytest.raises(ParameterError, match="--out .* is a folder"):
        check_output_path(str(tmp_path / "new") + "/", option="--out")
    with pytest.raises(ParameterError, match="the folder of --out .* does not exist"):
        check_output_path(tmp_path / "missing" / "out.json", option="--out")
    with pytest.raises(ParameterError, match="must end with .json"):
        check_output_path(tmp_path / "out.csv", option="--out", suffixes=(".json",))


def test_check_output_path_unwritable_folder(tmp_path):
    import os

    from paucity.io import check_output_path

    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):  # root writes anywhere: nothing to refuse
            pytest.skip("this user may write in a read-only folder")
        with pytest.raises(ParameterError, match="cannot be written"):
            check_output_path(locked / "out.json", option="--out")
    finally:
        locked.chmod(0o700)


def test_reading_a_table_imports_neither_anndata_nor_dask(tmp_path):
    import subprocess
    import sys

    (tmp_path / "t.csv").write_text("a,b\nx,y\n")
    code = (
        "import sys; from paucity.io import read_frame, write_csv, check_output_path; "
        f"read_frame({str(tmp_path / 't.csv')!r}, text_columns=['a']); "
        "bad = [m for m in ('anndata', 'dask') if m in sys.modules]; assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet="ab0N A,\t\n\"-.", max_size=80))
def test_fuzzed_tables_with_text_columns_read_or_raise_a_paucity_error(tmp_path, text):
    path = tmp_path / "t.csv"
    path.write_text("i,j,w\n" + text)
    try:
        frame = read_frame(path, text_columns=["i", "j"])
    except PaucityError:
        return
    for name in ("i", "j"):
        if name in frame:
            assert all(isinstance(v, str) or pd.isna(v) for v in frame[name])


def test_an_h5ad_read_backed_leaves_its_matrix_on_disk(tmp_path):
    X = sp.random(6, 4, density=0.5, format="csr", random_state=0, dtype=np.float32)
    anndata.AnnData(X, obs=pd.DataFrame(index=[f"c{i}" for i in range(6)])).write_h5ad(tmp_path / "m.h5ad")
    adata = read(tmp_path / "m.h5ad", backed=True)
    try:
        assert adata.isbacked and not sp.issparse(adata.X)
        from paucity._anndata import in_memory

        np.testing.assert_array_equal(in_memory(adata.X).toarray(), X.toarray())
    finally:
        adata.file.close()
    pd.DataFrame({"a": [1.0]}, index=["c1"]).to_csv(tmp_path / "t.csv")
    with pytest.raises(ParameterError, match="only an .h5ad can be read backed"):
        read(tmp_path / "t.csv", backed=True)
    with pytest.raises(ParameterError, match="cannot be transposed"):
        read(tmp_path / "m.h5ad", backed=True, transpose=True)
