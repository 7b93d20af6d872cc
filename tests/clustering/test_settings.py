"""The loop's settings are declared once (SessionSettings) and derived everywhere: estimator, session, commands."""

import dataclasses
import inspect
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.main import get_command

from paucity._errors import ParameterError
from paucity.cli.application import app
from paucity.clustering import ActiveSpectralClustering, ClusteringSession, SessionSettings, simulate
from paucity.clustering.settings import SETTINGS, defaults, settings_for, setting

ITEMS = ["a", "b", "c", "d", "e"]


def _command(*path):
    command = get_command(app)
    for name in path:
        command = command.commands[name]
    return command


def _options(command) -> dict:
    return {param.name: param for param in command.params if param.opts and param.opts[0].startswith("--")}


def test_the_declaration_is_the_sessions_settings_record():
    assert [s.name for s in SETTINGS] == [f.name for f in dataclasses.fields(SessionSettings)]
    assert SessionSettings() == SessionSettings(**defaults("session"))
    for s in SETTINGS:
        assert s.doc and s.help and s.option == "--" + s.name.replace("_", "-")


def test_the_estimator_takes_its_parameters_their_defaults_and_checks_from_the_declaration():
    declared = settings_for("estimator")
    model = ActiveSpectralClustering()
    params = model.get_params()
    assert set(params) == {s.name for s in declared} | {"progress", "store"}
    assert {s.name: params[s.name] for s in declared} == defaults("estimator")
    assert params["batch_size"] == 1 and SessionSettings().batch_size == 20  # the scopes' own defaults
    constraints = ActiveSpectralClustering._parameter_constraints
    for s in declared:
        assert constraints[s.name] == s.constraints_for("estimator")
        assert ActiveSpectralClustering._parameter_hints.get(s.name) == s.hint
        assert f"{s.name} : " in ActiveSpectralClustering.__doc__
    assert list(inspect.signature(ActiveSpectralClustering).parameters)[:2] == ["strategy", "interleave"]
    with pytest.raises(ParameterError, match="budget must be .*Give a number of measurements"):
        ActiveSpectralClustering(budget=0).ask(n_items=5)
    with pytest.raises(TypeError, match="ActiveSpectralClustering.__init__.*bogus"):
        ActiveSpectralClustering(bogus=1)


def test_the_session_and_simulate_take_the_declared_settings_by_name_and_refuse_others(tmp_path):
    with pytest.raises(ParameterError, match="batch is not a setting; the settings are strategy, interleave"):
        ClusteringSession.create(tmp_path / "s.db", ITEMS, batch=3)
    assert not (tmp_path / "s.db").exists()
    with pytest.raises(ParameterError, match="price is not a setting"):
        simulate([[1, .5, .5], [.5, 1, .5], [.5, .5, 1]], price=1)
    given = {"strategy": "random", "budget": 4, "batch_size": 2, "repeats": 2, "n_clusters": 2, "random_state": 7,
             "price": 0.5, "lease_seconds": 30.0, "cut": "ratio"}
    with ClusteringSession.create(tmp_path / "s.db", ITEMS, **given) as session:
        assert session.settings == SessionSettings(interleave=False, **given)
    with ClusteringSession.open(tmp_path / "s.db", **given) as session:  # the same settings resume it
        assert session.settings.lease_seconds == 30.0
    for name in given:
        if name in ("budget", "random_state"):
            continue
        other = {"strategy": "iu_red", "batch_size": 3, "repeats": 1, "n_clusters": 3, "price": 1.0,
                 "lease_seconds": 60.0, "cut": "sign"}[name]
        with pytest.raises(ParameterError, match=f"has {name}="):
            ClusteringSession.open(tmp_path / "s.db", **{name: other})


def test_a_stored_session_lacking_a_setting_reads_its_declared_before_value_or_is_damaged(tmp_path):
    from paucity._errors import ReaderError
    from paucity.clustering import MeasurementStore

    ClusteringSession.create(tmp_path / "s.db", ITEMS, random_state=0).close()
    with MeasurementStore(tmp_path / "s.db") as store:
        stored = json.loads(store.metadata["settings"])
        store.update_metadata({"settings": json.dumps({k: v for k, v in stored.items() if k != "cut"})})
    with ClusteringSession.open(tmp_path / "s.db") as session:
        assert session.settings.cut == setting("cut").before == "sign"
    with MeasurementStore(tmp_path / "s.db") as store:
        store.update_metadata({"settings": json.dumps({k: v for k, v in stored.items() if k != "repeats"})})
    with pytest.raises(ReaderError, match="is damaged: its session record cannot be read"):
        ClusteringSession.open(tmp_path / "s.db")


@pytest.mark.parametrize("path, scope", [(("cluster-active",), "estimator"), (("cluster-session", "start"), "session"),
                                         (("serve", "annotate"), "session")])
def test_the_commands_options_and_their_help_come_from_the_declaration(path, scope):
    options = _options(_command(*path))
    for s in settings_for(scope):
        assert s.name in options, (path, s.name)
        assert options[s.name].opts[0] == s.option
        assert s.help_for(scope).split(";")[0] in options[s.name].help
        if scope == "session":
            assert options[s.name].default is None and "Default: " in options[s.name].help


def _with_a_new_setting(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter where the declaration holds one more setting, ``max_per_pair``, added to
    the source of settings.py exactly as a maintainer would add it (and nothing else changed)."""
    import paucity.clustering.settings as module

    source = Path(module.__file__).read_text()
    field = textwrap.indent(textwrap.dedent('''
        max_per_pair: int = _setting(
            default=3, constraints=(Interval(numbers.Integral, 1, None),), kind=int, before=3,
            doc="The most answers one pair may get from one annotator.",
            help="The most answers one pair may get from one annotator.",
            hint="It counts the answers of one annotator to one pair.",
        )
    '''), "    ")
    anchor = "\n    def to_dict(self) -> dict:"
    assert anchor in source
    patched = tmp_path / "settings.py"
    patched.write_text(source.replace(anchor, field + anchor, 1))
    preamble = (
        "import importlib.util, os, sys\n"
        "os.environ['COLUMNS'] = '200'  # the help on one line per option\n"
        f"spec = importlib.util.spec_from_file_location('paucity.clustering.settings', {str(patched)!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules['paucity.clustering.settings'] = module\n"
        "spec.loader.exec_module(module)\n"
    )
    return subprocess.run([sys.executable, "-c", preamble + textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=tmp_path)


def test_a_setting_added_to_the_declaration_reaches_the_estimator_the_session_and_the_commands(tmp_path):
    """The two places: a field in SessionSettings (here written into a copy of settings.py) and the code that uses
    it. The estimator's parameter and check, the session's keyword and stored record, the refusal of another value,
    and the commands' option and help follow with no other change."""
    code = '''
        from paucity._errors import ParameterError
        from paucity.clustering import ActiveSpectralClustering, ClusteringSession
        model = ActiveSpectralClustering(max_per_pair=5)
        assert model.get_params()["max_per_pair"] == 5 and ActiveSpectralClustering().max_per_pair == 3
        try:
            ActiveSpectralClustering(max_per_pair=0).ask(n_items=5)
            raise SystemExit("not refused")
        except ParameterError as error:
            assert "max_per_pair must be an integer >= 1" in str(error) and "one annotator to one pair" in str(error)
        with ClusteringSession.create("s.db", list("abcde"), max_per_pair=4) as session:
            assert session.settings.max_per_pair == 4
        try:
            ClusteringSession.open("s.db", max_per_pair=2)
            raise SystemExit("not refused")
        except ParameterError as error:
            assert "has max_per_pair=4; max_per_pair=2 would make another session" in str(error)
        from typer.testing import CliRunner
        from paucity.cli.application import app
        runner = CliRunner()
        shown = runner.invoke(app, ["cluster-session", "start", "--help"], terminal_width=200).output
        assert "--max-per-pair" in shown and "one annotator" in shown, shown
        result = runner.invoke(app, ["cluster-session", "start", "t.db", "--items", "items.csv", "--max-per-pair", "0"])
        assert result.exit_code == 2 and "--max-per-pair must be an integer >= 1" in result.stderr, result.stderr
        assert "--max-per-pair" in runner.invoke(app, ["serve", "annotate", "--help"], terminal_width=200).output
        assert "--max-per-pair" in runner.invoke(app, ["cluster-active", "--help"], terminal_width=200).output
        print("reached every place")
    '''
    (tmp_path / "items.csv").write_text("item\na\nb\nc\nd\n")
    result = _with_a_new_setting(code, tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "reached every place" in result.stdout
