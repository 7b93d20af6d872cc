"""``paucity serve markers`` as a person starts it: one line with the URL, a token beyond the loopback."""

from __future__ import annotations

import re

import httpx
import pytest
from typer.testing import CliRunner

from paucity.cli import app

from .conftest import Served


def run(*args):
    return CliRunner().invoke(app, list(args))


def test_serve_lists_its_pages():
    result = run("serve", "--help")
    assert result.exit_code == 0 and "markers" in result.output


def test_a_file_that_is_not_h5ad_is_one_line_error(tmp_path):
    table = tmp_path / "cells.csv"
    table.write_text("a,b\n1,2\n")
    result = run("serve", "markers", str(table), "--groupby", "cell_type")
    assert result.exit_code == 2
    assert "not an .h5ad file" in result.output and len(result.output.strip().splitlines()) == 1


def test_a_missing_column_is_one_line_error(h5ad_path):
    result = run("serve", "markers", str(h5ad_path), "--groupby", "tissue")
    assert result.exit_code == 2 and "not a column of adata.obs" in result.output


def test_a_busy_port_is_one_line_error(h5ad_path):
    from paucity.serve.server import bind

    sock = bind("127.0.0.1", 0)
    try:
        result = run("serve", "markers", str(h5ad_path), "--groupby", "cell_type", "--port", str(sock.getsockname()[1]))
    finally:
        sock.close()
    assert result.exit_code == 2 and "choose another --port" in result.output


def test_serve_on_loopback_needs_its_token_too(h5ad_path):
    """Every user of a shared machine reaches 127.0.0.1, and the explorer writes the user's .h5ad: the token is
    needed there too, as a notebook server needs its own."""
    served = Served("serve", "markers", str(h5ad_path), "--groupby", "cell_type")
    try:
        found = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/\?token=([\w-]+)", served.url)
        assert found, served.url
        base = f"http://127.0.0.1:{found.group(1)}/"
        assert httpx.get(base + "api/state", timeout=30).status_code == 401
        assert httpx.post(base + "api/export/h5ad", json={}, timeout=30).status_code == 401  # it writes the file
        state = httpx.get(base + "api/state", headers={"x-paucity-token": found.group(2)}, timeout=30).json()
        assert state["groups"] == ["B cell", "Monocyte", "T cell"]
        assert "on this machine too" in served.wait_for_line("Every request needs the token")
    finally:
        served.stop()


def test_serve_beyond_loopback_prints_and_checks_a_token(h5ad_path):
    served = Served("serve", "markers", str(h5ad_path), "--groupby", "cell_type", "--host", "0.0.0.0")
    try:
        found = re.fullmatch(r"http://[\w.-]+:(\d+)/\?token=([\w-]+)", served.url)
        assert found, served.url
        base = f"http://127.0.0.1:{found.group(1)}/"
        assert httpx.get(base + "api/state", timeout=30).status_code == 401
        answer = httpx.get(base + "api/state", headers={"x-paucity-token": found.group(2)}, timeout=30)
        assert answer.status_code == 200
        assert "token" in served.wait_for_line("Every request needs the token")
    finally:
        served.stop()


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "give --items"),
        (["--items", "ITEMS", "--strategy", "best"], "--strategy must be"),
        (["--items", "ITEMS", "--media", "nowhere"], "media folder"),
        (["--items", "ITEMS", "--budget", "many"], "--budget must be"),
        (["--items", "ITEMS", "--price", "-1"], "price must be"),
    ],
)
def test_annotate_errors_are_one_line_and_write_nothing(tmp_path, args, message):
    items = tmp_path / "items.csv"
    items.write_text("item\n" + "".join(f"photo{k}\n" for k in range(6)))
    database = tmp_path / "photos.db"
    result = run("serve", "annotate", str(database), *[str(items) if a == "ITEMS" else a for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert not database.exists()


def test_annotate_prints_both_addresses(tmp_path):
    items = tmp_path / "items.csv"
    items.write_text("item\n" + "".join(f"photo{k}\n" for k in range(6)))
    served = Served("serve", "annotate", str(tmp_path / "photos.db"), "--items", str(items), "--budget", "5")
    try:
        line = served.wait_for_line("coordinator: ").strip()
        assert line.startswith("coordinator: " + served.url + "coordinator?token=")
        assert httpx.get(served.url + "api/progress", timeout=30).status_code == 401  # the coordinator's token, always
        token = line.rsplit("token=", 1)[1]
        assert httpx.get(served.url + "api/progress", headers={"x-paucity-token": token}, timeout=30).json()["budget"] == 5
    finally:
        served.stop()


def test_annotate_invites_annotators_and_prints_their_links_once(tmp_path):
    items = tmp_path / "items.csv"
    items.write_text("item\n" + "".join(f"photo{k}\n" for k in range(6)))
    (tmp_path / "gold.csv").write_text("i,j,answer\nphoto0,photo1,9\nphoto2,photo5,0\n")
    (tmp_path / "how.md").write_text("# How to answer\n\nThe same room is **9**.\n")
    command = ["serve", "annotate", str(tmp_path / "photos.db"), "--items", str(items), "--budget", "10",
               "--invite", "alice", "bob", "--gold", str(tmp_path / "gold.csv"), "--instructions",
               str(tmp_path / "how.md")]
    served = Served(*command)
    try:
        assert "each annotator opens their own link" in served.lines[0]
        coordinator = served.wait_for_line("coordinator: ").split("token=")[1].strip()
        links = {name: served.wait_for_line(f"  {name}: ").split("token=")[1].strip() for name in ("alice", "bob")}
        base = served.url
        me = httpx.get(base + "api/me", headers={"x-paucity-token": links["alice"]}, timeout=30).json()
        assert me["annotator"] == "alice" and "<h1>How to answer</h1>" in me["instructions"]
        assert httpx.post(base + "api/next", json={"annotator": "alice"}, timeout=30).status_code == 401
        progress = httpx.get(base + "api/progress", headers={"x-paucity-token": coordinator}, timeout=30).json()
        assert progress["n_gold_pairs"] == 2 and {a["annotator"] for a in progress["annotators"]} == {"alice", "bob"}
    finally:
        served.stop()
    again = Served(*command)  # started again as it was: the links already sent keep working
    try:
        assert "invited before" in again.wait_for_line("  alice: ")
        me = httpx.get(again.url + "api/me", headers={"x-paucity-token": links["alice"]}, timeout=30)
        assert me.status_code == 200 and me.json()["annotator"] == "alice"
    finally:
        again.stop()


def test_a_usage_error_of_a_subcommand_points_at_its_own_help_and_a_bad_port_is_named_by_its_option(tmp_path):
    import contextlib
    import io

    import typer

    from paucity._errors import ParameterError

    runner = CliRunner()
    result = runner.invoke(app, ["serve", "annotate", str(tmp_path / "s.db"), "--bogus-option", "1"])
    assert result.exit_code == 2
    assert "No such option: --bogus-option (see paucity serve annotate --help)" in result.stderr
    result = runner.invoke(app, ["cluster-session", "ask", str(tmp_path / "s.db"), "--bogus"])
    assert result.exit_code == 2 and "(see paucity cluster-session ask --help)" in result.stderr
    from paucity.cli._command import one_line_errors
    from paucity.serve.server import bind

    with pytest.raises(ParameterError, match="^port must be a whole number"):
        bind("127.0.0.1", 70000)
    with pytest.raises(typer.Exit), contextlib.redirect_stderr(io.StringIO()) as err:
        with one_line_errors(spelling={"port": "--port"}):
            bind("127.0.0.1", 70000)
    assert err.getvalue() == "error: --port must be a whole number from 0 to 65535 (0: any free port), got 70000.\n"
