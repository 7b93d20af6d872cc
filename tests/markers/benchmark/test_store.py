"""The resumable result folder: finished work is read back, other parameters refused, folds split across jobs."""

import json

import numpy as np
import pandas as pd
import pytest

from paucity._errors import ParameterError
from paucity.markers.benchmark import run_benchmark
from paucity.markers.benchmark.store import check_params, load_unit, read_params, save_unit, unit_path


def test_resume_skips_finished_work_and_refuses_other_parameters(tiny, fast, recorder, tmp_path):
    out = tmp_path / "run"
    first = run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **fast)
    assert len(recorder.calls) == 6
    assert len(list((out / "results").rglob("*.json"))) == 6
    second = run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **fast)
    assert len(recorder.calls) == 6  # nothing recomputed
    pd.testing.assert_frame_equal(first.table, second.table)

    # a lost result is recomputed, and only it
    (out / "results" / "fold1" / "Recorder-n4.json").unlink()
    run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **fast)
    assert len(recorder.calls) == 7

    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    with pytest.raises(ParameterError, match=r"different parameters \(n_features: \[2, 4\] there, \[2, 5\] now\)"):
        run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **dict(fast, n_features=[2, 5]))
    with pytest.raises(ParameterError, match="random_state: 0 there, 1 now"):
        run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, random_state=1, **fast)
    other_data = tiny.X.copy()
    other_data.data[0] += 1
    with pytest.raises(ParameterError, match="different parameters .*data"):
        run_benchmark(other_data, tiny.labels, methods=[recorder], out=out, **fast)
    assert len(recorder.calls) == 7
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before


def test_folds_split_across_jobs_share_one_folder(tiny, fast, tmp_path):
    out = tmp_path / "run"
    for k in (0, 1):
        run_benchmark(tiny.X, tiny.labels, methods=["mim"], out=out, run_folds=[k], **fast)
    part = pd.read_csv(out / "results.csv")
    assert set(part["fold"]) == {0, 1}
    whole = run_benchmark(tiny.X, tiny.labels, methods=["mim"], out=out, **fast)
    assert set(whole.table["fold"]) == {0, 1, 2}
    with pytest.raises(ParameterError, match=r"run_folds must be an integer in \[0, 2\], got 3\. Folds are numbered 0 to 2"):
        run_benchmark(tiny.X, tiny.labels, methods=["mim"], out=out, run_folds=[3], **fast)


def test_a_run_seeded_by_a_generator_resumes_with_its_recorded_seed(tiny, fast, recorder, tmp_path):
    out = tmp_path / "run"
    first = run_benchmark(tiny.X, tiny.labels, methods=[recorder, "random"], out=out,
                          random_state=np.random.default_rng(2), **fast)
    seed = json.loads((out / "params.json").read_text())["random_state"]
    assert seed == int(np.random.default_rng(2).integers(2**31))
    again = run_benchmark(tiny.X, tiny.labels, methods=[recorder, "random"], out=out, random_state=seed, **fast)
    assert len(recorder.calls) == 6  # resumed: nothing recomputed
    pd.testing.assert_frame_equal(first.table, again.table)


def test_a_folder_whose_params_say_n_markers_resumes_and_is_rewritten_with_n_features(tiny, fast, recorder, tmp_path):
    out = tmp_path / "run"
    run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **fast)
    path = out / "params.json"
    params = json.loads(path.read_text())
    assert params["n_features"] == [2, 4] and "n_markers" not in params
    # the layout written before the rename: the same run, under the old key
    params["n_markers"] = params.pop("n_features")
    path.write_text(json.dumps(params))
    assert read_params(path)["n_features"] == [2, 4]
    run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **fast)
    assert len(recorder.calls) == 6  # resumed: nothing recomputed
    rewritten = json.loads(path.read_text())
    assert rewritten["n_features"] == [2, 4] and "n_markers" not in rewritten
    # an old folder of another run is still told apart
    rewritten["n_markers"] = [2, 5]
    del rewritten["n_features"]
    path.write_text(json.dumps(rewritten))
    with pytest.raises(ParameterError, match=r"n_features: \[2, 5\] there, \[2, 4\] now"):
        run_benchmark(tiny.X, tiny.labels, methods=[recorder], out=out, **fast)


def test_messages_name_no_command_line_option(tmp_path):
    (tmp_path / "results").mkdir()
    with pytest.raises(ParameterError) as refused:
        check_params(tmp_path, {"version": 1})
    assert "--" not in str(refused.value) and "give an empty or new folder for the results" in str(refused.value)


def test_results_without_parameters_are_refused(tmp_path):
    (tmp_path / "results").mkdir()
    with pytest.raises(ParameterError, match="holds benchmark results but no params.json"):
        check_params(tmp_path, {"version": 1})
    (tmp_path / "params.json").write_text("{not json")
    with pytest.raises(ParameterError, match="cannot be read"):
        check_params(tmp_path, {"version": 1})
    (tmp_path / "params.json").write_text("[1, 2]")
    with pytest.raises(ParameterError, match="cannot be read .*JSON object"):
        check_params(tmp_path, {"version": 1})


def test_unit_files_round_trip_and_unreadable_ones_are_recomputed(tmp_path):
    path = unit_path(tmp_path, 2, "cife-binary", 10)
    assert path == tmp_path / "results" / "fold2" / "cife-binary-n10.json"
    assert unit_path(tmp_path, "all", "mim", 5) == tmp_path / "results" / "all" / "mim-n5.json"
    assert load_unit(path) is None
    save_unit(path, {"n_used": 9, "errors": {"random_forest": 0.25}})
    assert load_unit(path) == {"n_used": 9, "errors": {"random_forest": 0.25}}
    path.write_text("{half a fi")
    assert load_unit(path) is None
    save_unit(None, {"n_used": 1})  # a run without a folder writes nothing
