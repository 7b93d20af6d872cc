"""COSG as a benchmark method: refused without its Python, run through a runner script, its rankings checked and merged.

No test here needs COSG: a stand-in runner (a small script run by this very
Python) plays its part. The one test of the real COSG runs only when
``PAUCITY_COSG_PYTHON`` names an environment that has it.
"""

import importlib.util
import math
import os
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

from paucity._errors import InputError, ParameterError
from paucity.markers.benchmark import TimedSelection, merge_per_class, resolve_methods, run_benchmark
from paucity.markers.benchmark import _cosg_runner
from paucity.markers.benchmark.anchors import (
    COSG_PYTHON_VARIABLE,
    COSG_RUNNER,
    check_anchor_python,
    read_anchor_output,
    run_anchor,
)
from paucity.markers.benchmark.methods import cosg_method

# A stand-in for COSG's runner: ranks the columns of class t as t, t + c, t + 2c, ... (c classes), and reports
# as its seconds the number of cells it was given divided by 1,000, so that a test can see which cells it got.
FAKE_RUNNER = textwrap.dedent(
    """
    import json, sys
    import numpy as np

    args = sys.argv[1:]
    if args[0] == "--versions":
        json.dump({"versions": {"cosg": "stand-in"}}, open(args[1], "w"))
        sys.exit(0)
    data, out = args[0], args[1]
    n_genes = int(args[args.index("--n-genes") + 1])
    with np.load(data) as f:
        labels = f["labels"]
        shape = tuple(int(s) for s in f["shape"]) if "shape" in f.files else f["X"].shape
    c = int(labels.max()) + 1
    rankings = [list(range(t, shape[1], c))[:n_genes] for t in range(c)]
    json.dump({"rankings": rankings, "seconds": shape[0] / 1000, "versions": {"cosg": "stand-in"}}, open(out, "w"))
    """
)


@pytest.fixture()
def no_cosg_python(monkeypatch):
    monkeypatch.delenv(COSG_PYTHON_VARIABLE, raising=False)


@pytest.fixture()
def fake_runner(tmp_path):
    path = tmp_path / "fake_cosg_runner.py"
    path.write_text(FAKE_RUNNER)
    return path


def test_cosg_is_refused_in_one_line_without_its_python(tiny, fast, no_cosg_python):
    for call in (lambda: resolve_methods(["mim", "cosg"]), lambda: run_benchmark(tiny.X, tiny.labels, methods=["cosg"], **fast)):
        with pytest.raises(ParameterError) as caught:
            call()
        message = str(caught.value)
        assert "\n" not in message
        assert message.startswith("method 'cosg' runs COSG in a Python environment of its own, but none was given")
        for how in ("cosg_python=", "--cosg-python", COSG_PYTHON_VARIABLE, "pip install cosg", "leave cosg out"):
            assert how in message, how


def test_cosg_python_must_be_an_executable_file(tmp_path, no_cosg_python):
    with pytest.raises(ParameterError, match=r"is not an executable file; give the python of a virtual environment"):
        check_anchor_python(tmp_path / "no-such-python")
    with pytest.raises(ParameterError, match="is not an executable file"):
        resolve_methods(["cosg"], cosg_python=str(tmp_path))  # a folder


def test_cosg_python_comes_from_the_environment_variable(monkeypatch):
    monkeypatch.setenv(COSG_PYTHON_VARIABLE, sys.executable)
    assert check_anchor_python(None) == sys.executable
    assert check_anchor_python("") == sys.executable


def test_a_python_without_cosg_is_refused_before_any_work(tmp_path, no_cosg_python):
    failing = tmp_path / "failing_runner.py"
    failing.write_text("import sys\nsys.stderr.write('Traceback...\\nModuleNotFoundError: No module named \\'cosg\\'\\n')\nsys.exit(1)\n")
    with pytest.raises(ParameterError, match=r"cosg failed in .*: ModuleNotFoundError: No module named 'cosg' \(check that"):
        cosg_method(sys.executable, runner=failing)


@pytest.mark.skipif(importlib.util.find_spec("cosg") is not None, reason="this Python has COSG")
def test_the_real_runner_in_a_python_without_cosg_says_so(no_cosg_python):
    with pytest.raises(ParameterError, match="No module named 'cosg'"):
        resolve_methods(["cosg"], cosg_python=sys.executable)


def test_the_runners_rankings_are_read_as_column_indices_and_merged_per_class(tiny, fake_runner):
    method = cosg_method(sys.executable, runner=fake_runner)
    assert (method.key, method.name, method.mode, method.family) == ("cosg", "cosg", "binary", "anchor")
    assert method.label == "COSG" and method.select.versions == {"cosg": "stand-in"}
    X, y = tiny.X, tiny.labels  # 3 classes, 30 genes
    chosen = method.select(X, y, 5)
    assert isinstance(chosen, TimedSelection)
    per_class = math.ceil(5 / 3)
    expected = merge_per_class([list(range(t, 30, 3))[:per_class] for t in range(3)], per_class)
    assert chosen.indices.tolist() == expected.tolist() == [0, 1, 2, 3, 4, 5]
    assert chosen.seconds == pytest.approx(X.shape[0] / 1000)
    # dense cells travel too
    assert method.select(X.toarray(), y, 2).indices.tolist() == [0, 1, 2]


def test_cosg_through_the_protocol_records_the_seconds_its_process_reports(tiny, fast, fake_runner, monkeypatch):
    import paucity.markers.benchmark.anchors as anchors

    monkeypatch.setattr(anchors, "COSG_RUNNER", fake_runner)  # what resolve_methods(["cosg"]) runs
    result = run_benchmark(tiny.X, tiny.labels, methods=["cosg", "random"], cosg_python=sys.executable,
                           **dict(fast, full_data=True, n_top=6))
    rows = result.table[result.table["method"] == "cosg"]
    assert set(rows["mode"]) == {"binary"}
    assert rows["n_used"].tolist() == [3, 6] * 3  # ⌈2/3⌉ and ⌈4/3⌉ per class, 3 classes
    train_sizes = {fold: result.folds.train_indices(fold).size for fold in range(3)}
    assert rows["selection_seconds"].tolist() == pytest.approx([train_sizes[f] / 1000 for f in rows["fold"]])
    cosg_runtime = result.runtimes.set_index("method").loc["cosg"]
    assert cosg_runtime["selection_seconds"] == pytest.approx(tiny.X.shape[0] / 1000)
    picks = result.selections[result.selections["method"] == "cosg"]["feature_index"].tolist()
    assert picks == [0, 1, 2, 3, 4, 5]
    assert "COSG" in result.overlap.index


@pytest.mark.parametrize(
    "payload, message",
    [
        ({"seconds": 1.0}, "returned no rankings"),
        ({"rankings": [[0, 1]], "seconds": 1.0}, "returned 1 rankings for 2 classes"),
        ({"rankings": [[0, 9], [1]], "seconds": 1.0}, "ranking of class 0 names column 9 but the data has columns 0..4"),
        ({"rankings": [[0], [-1]], "seconds": 1.0}, "ranking of class 1 names column -1"),
        ({"rankings": [[0, 0], [1]], "seconds": 1.0}, "ranking of class 0 lists the same column twice"),
        ({"rankings": [["a"], [1]], "seconds": 1.0}, "ranking of class 0 is not a list of column indices"),
        ({"rankings": [[0.5], [1]], "seconds": 1.0}, "ranking of class 0 is not a list of column indices"),
        ({"rankings": [[0], [1]], "seconds": -1}, "reported -1 seconds"),
        ({"rankings": [[0], [1]]}, "reported None seconds"),
        ([1, 2], "returned no rankings"),
    ],
)
def test_bad_runner_output_is_refused(payload, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(".", r"\.")):
        read_anchor_output(payload, 5, 2)


def test_an_empty_ranking_is_read_and_merged_as_nothing():
    run = read_anchor_output({"rankings": [[], [3, 1]], "seconds": 0, "versions": {"cosg": "x"}}, 5, 2)
    assert [r.tolist() for r in run.rankings] == [[], [3, 1]] and run.versions == {"cosg": "x"}


def test_run_anchor_writes_sparse_cells_the_runner_can_read(tmp_path):
    echo = tmp_path / "echo_runner.py"
    echo.write_text(textwrap.dedent(
        """
        import json, sys
        import numpy as np, scipy.sparse as sp
        with np.load(sys.argv[1]) as f:
            X = sp.csr_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(f["shape"]))
            labels = f["labels"]
        order = np.argsort(-np.asarray(X.sum(axis=0)).ravel(), kind="stable")
        json.dump({"rankings": [order.tolist()] * (int(labels.max()) + 1), "seconds": 0.0}, open(sys.argv[2], "w"))
        """
    ))
    X = sp.csr_matrix(np.array([[0, 5, 1], [0, 4, 2], [1, 3, 0]], dtype=np.float32))
    run = run_anchor(sys.executable, X, np.array([0, 0, 1]), 2, runner=echo)
    assert [r.tolist() for r in run.rankings] == [[1, 2, 0], [1, 2, 0]]


def test_the_runner_loads_sparse_and_dense_cells(tmp_path):
    X = sp.csr_matrix(np.array([[0, 2], [3, 0], [1, 1]], dtype=np.float32))
    labels = np.array([1, 0, 1])
    np.savez(tmp_path / "sparse.npz", data=X.data, indices=X.indices, indptr=X.indptr, shape=np.asarray(X.shape), labels=labels)
    np.savez(tmp_path / "dense.npz", X=X.toarray(), labels=labels)
    for name in ("sparse.npz", "dense.npz"):
        loaded, codes, classes = _cosg_runner.load(str(tmp_path / name), None)
        dense = loaded.toarray() if sp.issparse(loaded) else loaded
        assert np.array_equal(dense, X.toarray()) and codes.tolist() == [1, 0, 1] and classes == ["0", "1"]
    assert COSG_RUNNER.name == "_cosg_runner.py" and COSG_RUNNER.is_file()


@pytest.mark.skipif(not os.environ.get(COSG_PYTHON_VARIABLE), reason=f"{COSG_PYTHON_VARIABLE} is not set")
def test_real_cosg_marks_the_planted_markers():
    from paucity.datasets import make_scrna_counts

    data = make_scrna_counts(n_cells=300, n_genes=60, n_types=3, n_markers=15, random_state=0)
    method = resolve_methods(["cosg"])[0]
    assert method.select.versions["cosg"]
    chosen = method.select(data.X, data.labels, 6)
    assert chosen.indices.size == 6 and chosen.seconds >= 0
    markers = set(np.concatenate(data.marker_genes).tolist())
    assert set(chosen.indices.tolist()) <= markers
