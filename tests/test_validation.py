"""The shared input checks: clear errors from paucity._errors, and nothing else, on any input."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from paucity._errors import (
    InputError,
    InputTypeError,
    ParameterError,
    PaucityError,
    ShapeMismatchError,
)
from paucity._validation import (
    check_choice,
    check_discrete_matrix,
    check_labels,
    check_matrix,
    check_random_state,
)
from paucity.markers import InfoSelector

weird_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -1.0, 1e308, -0.0, 255.0, 256.0, 3.5])
)


@settings(max_examples=200, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(0, 6), st.integers(0, 5)), elements=weird_floats),
    st.booleans(),
)
def test_check_matrix_accepts_or_raises_a_paucity_error(X, sparse):
    value = sp.csr_matrix(X) if sparse and X.size else X
    try:
        out = check_matrix(value, sparse_format="csc")
    except PaucityError:
        return
    values = out.data if sp.issparse(out) else out
    assert np.isfinite(values).all() and (values >= 0).all()


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.integers(-3, 300), st.floats(allow_nan=True), st.text(max_size=2), st.none()), max_size=12))
def test_object_and_ragged_input_never_escapes_as_another_error(values):
    for candidate in (np.array(values, dtype=object).reshape(-1, 1) if values else np.array(values), values):
        try:
            check_matrix(candidate)
        except PaucityError:
            pass


@settings(max_examples=150, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 4)), elements=weird_floats))
def test_check_discrete_matrix(X):
    try:
        out = check_discrete_matrix(X)
    except PaucityError:
        return
    assert out.dtype == np.uint8 and np.array_equal(out, X)


@pytest.mark.filterwarnings("ignore::paucity._errors.PaucityWarning")
@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["a", "b", "c"]), st.none(), st.just(float("nan")), st.sampled_from([1, 2.5, True])),
                min_size=0, max_size=15))
def test_check_labels(labels):
    present = [value for value in labels if not pd.isna(value)]
    kinds = {bool if isinstance(value, bool) else str if isinstance(value, str) else float for value in present}
    try:
        codes, classes, keep = check_labels(np.array(labels, dtype=object), len(labels))
    except PaucityError as error:
        assert (len(kinds) > 1) == ("mixes labels of different types" in str(error)), (labels, str(error))
        return
    assert len(kinds) == 1
    assert len(classes) >= 2
    n_kept = len(labels) if keep is None else int(keep.sum())
    assert codes.shape == (n_kept,) and codes.min() >= 0 and codes.max() == len(classes) - 1


@pytest.mark.filterwarnings("ignore::paucity._errors.PaucityWarning")
@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 30), st.integers(1, 5)), elements=weird_floats),
    st.lists(st.integers(0, 2), min_size=0, max_size=31),
    st.sampled_from(["mim", "cife", "jmi", "entropy2", "degree"]),
)
def test_selector_fit_never_raises_anything_but_a_paucity_error(X, y, method):
    try:
        InfoSelector(method=method, n_features=1, degree=3 if method == "degree" else None).fit(X, None if method == "entropy2" else np.array(y))
    except PaucityError:
        pass


def test_messages_say_what_and_how():
    with pytest.raises(ShapeMismatchError, match="y has 3 entries but X has 4 rows"):
        check_labels([0, 1, 0], 4)
    with pytest.raises(InputTypeError, match="must hold numbers"):
        check_matrix(np.array([["a", "b"]]))
    with pytest.raises(InputError, match="largest value is 256"):
        check_discrete_matrix(np.array([[256.0]]))
    with pytest.raises(InputError, match="non-integer"):
        check_discrete_matrix(np.array([[1.5]]))
    with pytest.raises(ParameterError, match="mode must be one of 'a', 'b', got 'x'"):
        check_choice("x", ("a", "b"), "mode")
    with pytest.raises(ParameterError, match="random_state"):
        check_random_state("seed")
    assert isinstance(check_random_state(3), np.random.Generator)
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [0.0, 1.0]})
    assert check_matrix(frame).shape == (2, 2)


def test_check_memory_refuses_an_array_beyond_the_machine_naming_the_cause():
    from paucity._validation import check_memory, machine_memory

    check_memory((1000, 1000), cause="n_factors=4", memory=2**30)
    with pytest.raises(ParameterError, match=r"BBMC: n_factors=100000 needs the labelers' factor pairs of shape "
                                             r"13 x 100000 x 100000 \(969 GiB\), more than this machine's 16 GiB"):
        check_memory((13, 100000, 100000), cause="n_factors=100000", owner="BBMC", what="the labelers' factor pairs",
                     memory=16 * 2**30)
    assert machine_memory() is None or machine_memory() > 2**20
    with pytest.raises(ParameterError, match="far beyond"):  # no overflow, whatever the shape
        check_memory((10**30, 10**30), cause="n=1e30", memory=2**40, hint="far beyond")


def test_iteration_counts_beyond_the_bound_are_refused_with_the_reason():
    from paucity._validation import MAX_ITERATIONS, Iterations, check_parameter

    assert check_parameter(MAX_ITERATIONS, "n_burnin", [Iterations(0)]) == MAX_ITERATIONS
    with pytest.raises(ParameterError, match=r"n_burnin must be an integer in \[0, 100000000\] \(more iterations "
                                             r"could not finish in hours\), got 100000000000000000000000"):
        check_parameter(10**23, "n_burnin", [Iterations(0)])


def test_a_seed_is_described_in_python_words_in_python_and_in_option_words_on_a_command_line():
    from paucity._spelling import option_spelling
    from paucity._validation import RANDOM_STATE, check_parameter

    with pytest.raises(ParameterError, match=r"^random_state must be a non-negative integer seed, a numpy Generator "
                                             r"or None, got -1\. Pass a seed such as 0\.$"):
        check_random_state(-1)
    with pytest.raises(ParameterError, match=r"^BBMC: random_state must be a non-negative integer seed, a numpy "
                                             r"Generator or None, got -1\.$"):
        check_parameter(-1, "random_state", [RANDOM_STATE], owner="BBMC")
    with option_spelling({"random_state": "--random-state"}):
        with pytest.raises(ParameterError, match=r"^--random-state must be a non-negative integer, got -1\. Pass a "
                                                 r"seed such as 0\.$"):
            check_random_state(-1)
        with pytest.raises(ParameterError, match=r"^--random-state must be a non-negative integer, got -1\.$"):
            check_parameter(-1, "random_state", [RANDOM_STATE], owner="BBMC")


def test_a_command_line_is_told_only_what_it_can_type():
    import numbers

    from paucity._spelling import option_spelling
    from paucity._validation import N_JOBS, Instance, Interval, Options, check_parameter, describe_constraints

    constraints = [Interval(numbers.Integral, 1, None), Options("auto"), Instance(np.random.Generator), None]
    assert describe_constraints(constraints) == "an integer >= 1 or one of 'auto' or an instance of Generator or None"
    assert describe_constraints(constraints, command_line=True) == "an integer >= 1 or one of 'auto'"
    assert describe_constraints([N_JOBS], command_line=True) == "a positive integer or -1 (every core)"
    assert describe_constraints([Instance(str)], command_line=True) == "an instance of str"
    with option_spelling({"n_jobs": "--n-jobs"}):
        with pytest.raises(ParameterError, match=r"^--n-jobs must be a positive integer or -1 \(every core\), got 0\.$"):
            check_parameter(0, "n_jobs", [N_JOBS], owner="analyze")


def test_a_hint_that_opens_with_the_parameter_names_the_option_on_a_command_line():
    from paucity._spelling import option_spelling
    from paucity.crowd import BBMC

    # the parameters are checked first, before the labels and features are looked at
    with pytest.raises(ParameterError, match=r"^BBMC: sigma must be .*, got 0\.0\. sigma is the prior standard"):
        BBMC(sigma=0.0).fit(None, None)
    with option_spelling({"sigma": "--sigma"}):
        with pytest.raises(ParameterError, match=r"^--sigma must be .*, got 0\.0\. --sigma is the prior standard"):
            BBMC(sigma=0.0).fit(None, None)



# -- the columns a table must have -----------------------------------------------------------------------------------
from paucity._spelling import option_spelling  # noqa: E402
from paucity._validation import check_columns  # noqa: E402


def test_a_missing_column_is_named_with_its_role_as_python_spells_it():
    games = pd.DataFrame({"home": ["a"], "away": ["b"], "won": ["b"]})
    check_columns(games, {"i": "home", "j": "away", "winner": "won", "weights": None})  # present, or not asked for
    with pytest.raises(InputError) as caught:
        check_columns(games, {"i": "home", "j": "guest", "winner": "absent"})
    assert str(caught.value) == (
        "the table has no column 'guest' (the j column, j=); its columns are 'home', 'away', 'won'."
    )


def test_on_a_command_line_the_role_is_named_by_its_option_and_the_table_by_its_path():
    games = pd.DataFrame({"home": ["a"], "away": ["b"]})
    with option_spelling({"i": "--i-column"}), pytest.raises(InputError) as caught:
        check_columns(games, {"i": "host"}, what="games.csv")
    assert str(caught.value) == (
        "games.csv has no column 'host' (the i column, --i-column); its columns are 'home', 'away'."
    )


def test_only_the_first_ten_columns_are_listed():
    wide = pd.DataFrame(columns=[f"c{k}" for k in range(12)])
    with pytest.raises(InputError, match=r"its columns are 'c0', .*, 'c9', \.\.\.\.$"):
        check_columns(wide, {"value": "v"})
    with pytest.raises(InputError, match=r"no column 'v' \(the value column, value=\); it has no columns\.$"):
        check_columns(pd.DataFrame(), {"value": "v"})


@pytest.mark.parametrize("frame, columns, error", [
    ({"a": [1]}, {"i": "a"}, InputTypeError),
    (pd.DataFrame({"a": [1]}), [("i", "a")], InputTypeError),
    (pd.DataFrame({"a": [1]}), {"i": ["a"]}, InputError),  # an unhashable name is no column
])
def test_what_is_not_a_table_or_a_mapping_of_columns_is_refused(frame, columns, error):
    with pytest.raises(error):
        check_columns(frame, columns)


names = st.one_of(st.text(max_size=3), st.integers(-2, 2), st.floats(allow_nan=True), st.none(), st.booleans(),
                  st.lists(st.text(max_size=1), max_size=2), st.tuples(st.text(max_size=1)))


@settings(max_examples=200, deadline=None)
@given(
    columns=st.lists(st.one_of(st.text(max_size=3), st.integers(-2, 2), st.floats(allow_nan=True)), max_size=12),
    asked=st.dictionaries(st.text(max_size=4), names, max_size=5),
    spelled=st.booleans(),
)
def test_check_columns_raises_only_paucity_errors(columns, asked, spelled):
    frame = pd.DataFrame([[0] * len(columns)], columns=columns) if columns else pd.DataFrame()
    spelling = {role: f"--{role}-column" for role in asked} if spelled else {}
    try:
        with option_spelling(spelling):
            check_columns(frame, asked, what="t.csv")
    except InputError as error:
        assert str(error).startswith("t.csv has no column ")
    else:
        for column in asked.values():
            assert column is None or column in frame.columns


@settings(max_examples=50, deadline=None)
@given(frame=st.one_of(st.none(), st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=3),
                       st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)),
       asked=st.one_of(st.dictionaries(st.text(max_size=4), names, max_size=3), st.lists(names, max_size=2), st.none()))
def test_check_columns_refuses_what_is_not_a_table_with_a_paucity_error(frame, asked):
    with pytest.raises(PaucityError):
        check_columns(frame, asked)
