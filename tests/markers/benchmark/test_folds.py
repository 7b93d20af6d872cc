"""Stratified, seeded folds; saved and reloaded by sample name (seed 000, §2.6.2, step 1)."""

import numpy as np
import pytest

from paucity._errors import InputError, ParameterError, ShapeMismatchError
from paucity.markers.benchmark import Folds, make_folds, run_benchmark


def test_folds_are_stratified_and_seeded():
    labels = np.repeat(["a", "b", "c"], [30, 12, 7])
    folds = make_folds(labels, n_folds=3, random_state=4)
    for k in range(3):
        test = folds.test_indices(k)
        for cls, size in (("a", 30), ("b", 12), ("c", 7)):
            assert abs(np.sum(labels[test] == cls) - size / 3) < 1
        assert np.intersect1d(test, folds.train_indices(k)).size == 0
    assert np.bincount(folds.fold_of).sum() == labels.size
    again = make_folds(labels, n_folds=3, random_state=4)
    np.testing.assert_array_equal(folds.fold_of, again.fold_of)
    other = make_folds(labels, n_folds=3, random_state=5)
    assert not np.array_equal(folds.fold_of, other.fold_of)


def test_a_generator_gives_the_folds_of_the_seed_it_draws():
    labels = np.repeat(["a", "b"], [20, 10])
    folds = make_folds(labels, n_folds=3, random_state=np.random.default_rng(11))
    seed = int(np.random.default_rng(11).integers(2**31))
    assert folds.random_state == seed
    np.testing.assert_array_equal(folds.fold_of, make_folds(labels, n_folds=3, random_state=seed).fold_of)
    assert isinstance(make_folds(labels, n_folds=3, random_state=None).random_state, int)


@pytest.mark.parametrize("bad", [-1, 2**32, 2**64])
def test_a_seed_numpy_cannot_take_is_refused_by_paucity(bad):
    with pytest.raises(ParameterError, match=r"random_state must be an integer in \[0, 4294967295\]"):
        make_folds(["a", "b"] * 6, n_folds=3, random_state=bad)


def test_the_largest_seed_numpy_takes_is_accepted():
    folds = make_folds(["a", "b"] * 6, n_folds=3, random_state=2**32 - 1)
    assert folds.random_state == 2**32 - 1


def test_folds_save_and_reload_by_sample_name(tmp_path):
    labels = np.repeat(["a", "b"], 6)
    names = [f"cell{i}" for i in range(12)]
    folds = make_folds(labels, n_folds=3, random_state=0, samples=names)
    folds.save(tmp_path / "folds.csv")
    back = Folds.load(tmp_path / "folds.csv")
    np.testing.assert_array_equal(back.fold_of, folds.fold_of)
    assert back.n_folds == 3
    shuffled = names[::-1]
    reordered = Folds.load(tmp_path / "folds.csv", samples=shuffled)
    np.testing.assert_array_equal(reordered.fold_of, folds.fold_of[::-1])
    with pytest.raises(ShapeMismatchError, match="does not list 'other'"):
        Folds.load(tmp_path / "folds.csv", samples=names[:-1] + ["other"])


def test_saved_folds_are_reused_by_another_run(tiny, fast, tmp_path):
    first = run_benchmark(tiny.X, tiny.labels, methods=["random"], out=tmp_path / "a", random_state=1, **fast)
    second = run_benchmark(
        tiny.X, tiny.labels, methods=["random"], folds=tmp_path / "a" / "folds.csv", random_state=7, **fast
    )
    np.testing.assert_array_equal(first.folds.fold_of, second.folds.fold_of)


def test_class_smaller_than_folds_is_refused_before_any_work(tiny, fast, recorder, tmp_path):
    labels = tiny.labels.astype(object).copy()
    labels = np.where(labels == 0, "big", "other").astype(object)
    labels[:2] = "rare"
    out = tmp_path / "out"
    with pytest.raises(InputError, match=r"class 'rare' has 2 member\(s\), fewer than the 3 folds"):
        run_benchmark(tiny.X, labels, methods=[recorder], out=out, **fast)
    assert recorder.calls == []
    assert not out.exists()
    with pytest.raises(InputError, match="'rare'"):
        make_folds(labels, n_folds=3)


def test_sample_names_come_back_as_written(tmp_path):
    from paucity._errors import ReaderError

    names = ["=SUM(A1)", "-x", "NA", "00024", "+y", "@z", "null", "a", "b", "c", "d", "e"]
    folds = make_folds(np.repeat(["a", "b"], 6), n_folds=3, random_state=0, samples=names)
    for name in ("folds.csv", "folds.csv.gz"):
        folds.save(tmp_path / name)
        back = Folds.load(tmp_path / name, samples=names[::-1])
        assert back.samples.tolist() == names[::-1]
        np.testing.assert_array_equal(back.fold_of, folds.fold_of[::-1])
    assert "'=SUM(A1)" in (tmp_path / "folds.csv").read_text()  # neutralized on disk, restored when read
    (tmp_path / "other.csv").write_text("cell,fold\na,0\n")
    with pytest.raises(ReaderError, match="is not a folds file"):
        Folds.load(tmp_path / "other.csv")
    with pytest.raises(ReaderError, match="folds file .* does not exist"):
        Folds.load(tmp_path / "absent.csv")
