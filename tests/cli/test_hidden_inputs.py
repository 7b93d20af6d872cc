"""The hidden siblings of bad input: each gets one clear line, exit 2, and nothing written or changed."""

from __future__ import annotations

import gzip
import socket
import threading
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from paucity.cli import app
from paucity.clustering import ClusteringSession

from ._outcomes import fails_in_one_line

runner = CliRunner()
ITEMS = [f"p{k:03d}" for k in range(12)]


def files(folder: Path) -> dict:
    return {path.name: path.read_bytes() for path in folder.iterdir() if path.is_file()}


def long_table(path: Path, names=("left", "right", "score")):
    rows = [f"{a},{b},{0.9 if (int(a[1:]) < 6) == (int(b[1:]) < 6) else 0.1}"
            for k, a in enumerate(ITEMS) for b in ITEMS[k + 1:]]
    path.write_text(",".join(names) + "\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("names", [("a", "b", "sim"), ("left", "right", "score")])
def test_a_long_table_under_other_names_asks_for_them_by_name(tmp_path, names):
    table = long_table(tmp_path / "pairs.csv", names)
    before = files(tmp_path)
    result = runner.invoke(app, ["cluster-active", str(table), "--out", str(tmp_path / "labels.csv")])
    fails_in_one_line(result, "looks like a long table", f"--i-column '{names[0]}' --j-column '{names[1]}' "
                                                        f"--value-column '{names[2]}'")
    assert files(tmp_path) == before
    named = runner.invoke(app, ["cluster-active", str(table), "--i-column", names[0], "--j-column", names[1],
                                "--value-column", names[2], "--budget", "0.5", "--out", str(tmp_path / "labels.csv")])
    assert named.exit_code == 0, named.stderr


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig"])
def test_a_spreadsheets_unicode_text_is_read(tmp_path, encoding):
    table = tmp_path / "pairs.csv"
    table.write_text(long_table(tmp_path / "plain.csv", ("i", "j", "value")).read_text(), encoding=encoding)
    result = runner.invoke(app, ["cluster-active", str(table), "--budget", "0.5", "--out", str(tmp_path / "l.csv")])
    assert result.exit_code == 0, result.stderr
    assert pd.read_csv(tmp_path / "l.csv")["item"].tolist() == ITEMS


def test_other_encodings_and_compressed_data_are_named(tmp_path):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("i,j,value\nJosé,p001,0.5\n".encode("latin-1"))
    packed = tmp_path / "packed.csv"
    packed.write_bytes(gzip.compress(b"i,j,value\na,b,0.5\n"))
    for table, words in ((latin, ["is not UTF-8 text", "iconv -f latin1 -t utf-8"]),
                         (packed, ["gzip-compressed", "name it packed.csv.gz"])):
        result = runner.invoke(app, ["cluster-active", str(table), "--out", str(tmp_path / "l.csv")])
        fails_in_one_line(result, *words)
    assert not (tmp_path / "l.csv").exists()


def test_a_header_of_a_million_columns_is_refused_at_once(tmp_path):
    from paucity._errors import ReaderError
    from paucity.io import read_frame

    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(f"c{k}" for k in range(1_000_000)) + "\n")
    with pytest.raises(ReaderError, match="header of 1000000 columns"):
        read_frame(wide)
    narrow = tmp_path / "narrow.csv"
    narrow.write_text(",".join(f"c{k}" for k in range(50_000)) + "\n")
    with pytest.raises(ReaderError, match="has a header but no rows"):
        read_frame(narrow)


def test_the_database_help_names_the_postgres_extra():
    for command in (["cluster-session", "status", "--help"], ["serve", "annotate", "--help"]):
        shown = runner.invoke(app, command, terminal_width=200, env={"COLUMNS": "200"}).output
        assert "paucity[postgres]" in shown, command


@pytest.fixture
def started(tmp_path):
    items = tmp_path / "items.csv"
    items.write_text("item\n" + "\n".join(ITEMS) + "\n")
    return items


def test_an_invitation_names_each_annotator_once_or_is_refused_before_anything_starts(tmp_path, started):
    database = tmp_path / "s.db"
    base = ["serve", "annotate", str(database), "--items", str(started), "--port", "70000"]
    for invite, words in ((["--invite", ""], ["--invite '' names nobody"]),
                          (["--invite", "bob\nalice"], ["annotator must be a name", "control characters"]),
                          (["--invite", "alice,"], ["names nobody"])):
        fails_in_one_line(runner.invoke(app, [*base, *invite]), *words)
        assert not database.exists()
    from paucity.cli.serve import _names

    assert _names(["alice", "alice", "Mary Ann,bob"]) == ["alice", "Mary Ann", "bob"]


def test_a_bad_gold_file_starts_no_session_and_counts_rows_from_one(tmp_path, started):
    database = tmp_path / "s.db"
    for rows, words in (("i,j,answer\np000,p001,12\n", ["gold.csv has the answer 12", "data row 1"]),
                        ("i,j,answer\np000,p001,9\np000,zz,9\n", ["gold data row 2: 'zz' is not an item"]),
                        ("i,j\np000,p001\n", ["gold.csv has no column 'value'"]),
                        ("i,j,answer\np000,p001,9\np001,p000,2\n", ["gives the pair ('p000', 'p001') twice",
                                                                     "data rows 1 and 2"])):
        (tmp_path / "gold.csv").write_text(rows)
        result = runner.invoke(app, ["serve", "annotate", str(database), "--items", str(started), "--gold",
                                     str(tmp_path / "gold.csv")])
        fails_in_one_line(result, *words)
        assert not database.exists()


def test_answers_belong_to_whom_held_the_pairs_not_to_the_files_name(tmp_path, started):
    database = tmp_path / "s.db"
    for who in ("w1", "w2"):
        asked = runner.invoke(app, ["cluster-session", "start", str(database), "--items", str(started), "--budget",
                                    "20", "--batch-size", "8", "--random-state", "0", "--annotator", who, "-n", "3",
                                    "--out", str(tmp_path / f"{who}.asks.csv")])
        assert asked.exit_code == 0, asked.stderr
    for who in ("w1", "w2"):
        asks = pd.read_csv(tmp_path / f"{who}.asks.csv", dtype=str).assign(value=0.5)
        asks.to_csv(tmp_path / f"{who}.1.answers.csv", index=False)
        answered = runner.invoke(app, ["cluster-session", "answer", str(database), str(tmp_path / f"{who}.1.answers.csv"),
                                       "--out", str(tmp_path / "clusters.csv")])
        assert answered.exit_code == 0, answered.stderr
    with ClusteringSession.open(database) as session:
        assert set(session.answers()["source"]) == {"w1", "w2"}
    status = runner.invoke(app, ["cluster-session", "status", str(database)]).stdout
    assert "  w1\t3 answers" in status and "answers.csv" not in status


def test_an_output_that_names_an_input_is_refused(tmp_path, started):
    database = tmp_path / "s.db"
    runner.invoke(app, ["cluster-session", "start", str(database), "--items", str(started), "--random-state", "0",
                        "--out", str(tmp_path / "asks.csv")])
    asks = pd.read_csv(tmp_path / "asks.csv", dtype=str).assign(value=0.5)
    asks.to_csv(tmp_path / "answers.csv", index=False)
    before = files(tmp_path)
    result = runner.invoke(app, ["cluster-session", "answer", str(database), str(tmp_path / "answers.csv"), "--out",
                                 str(tmp_path / "answers.csv")])
    fails_in_one_line(result, "--out", "is also the ANSWERS file")
    assert files(tmp_path) == before
    table = long_table(tmp_path / "pairs.csv", ("i", "j", "value"))
    result = runner.invoke(app, ["cluster-active", str(table), "--out", str(table)])
    fails_in_one_line(result, "is also the SIMILARITIES file")


def test_a_cut_answers_line_and_the_sessions_own_budget_are_named(tmp_path, started):
    database = tmp_path / "s.db"
    runner.invoke(app, ["cluster-session", "start", str(database), "--items", str(started), "--budget", "10",
                        "--random-state", "0", "--out", str(tmp_path / "asks.csv")])
    asks = pd.read_csv(tmp_path / "asks.csv", dtype=str)
    (tmp_path / "answers.csv").write_text(f"i,j,value\n{asks['i'][0]},{asks['j'][0]},0.5\np003,p0\n")
    result = runner.invoke(app, ["cluster-session", "answer", str(database), str(tmp_path / "answers.csv"),
                                 "--out", str(tmp_path / "c.csv")])
    fails_in_one_line(result, "data row 2 names 'p0', which is not an item")
    fails_in_one_line(runner.invoke(app, ["cluster-session", "extend", str(database), "--budget", "10"]),
                      "is the session's budget already")
    with ClusteringSession.open(database) as session:
        assert session.budget == 10 and len(session.answers()) == 0


def test_instructions_that_are_a_folder_are_named_by_their_option(tmp_path, started):
    result = runner.invoke(app, ["serve", "annotate", str(tmp_path / "s.db"), "--items", str(started),
                                 "--instructions", str(tmp_path)])
    fails_in_one_line(result, "--instructions", "is a folder")
    assert not (tmp_path / "s.db").exists()


def test_a_server_that_never_answers_is_given_up_in_seconds(monkeypatch):
    import paucity.clustering.store.database as database

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    held = []
    threading.Thread(target=lambda: held.append(server.accept()), daemon=True).start()
    monkeypatch.setattr(database, "CONNECT_TIMEOUT_S", 2)
    port = server.getsockname()[1]
    try:
        result = runner.invoke(app, ["cluster-session", "status", f"postgresql://lab@127.0.0.1:{port}/photos"])
        fails_in_one_line(result, f"the PostgreSQL server at 127.0.0.1:{port} did not answer within 2 s")
    finally:
        server.close()


def test_the_markers_command_speaks_in_options(tmp_path):
    import anndata
    import numpy as np

    cells = anndata.AnnData(np.random.default_rng(0).poisson(1.0, (60, 5)).astype(np.float32),
                            obs=pd.DataFrame({"group": ["a", "b"] * 30}, index=[f"c{k}" for k in range(60)]))
    cells.write_h5ad(tmp_path / "cells.h5ad")
    base = ["markers", str(tmp_path / "cells.h5ad"), "--groupby", "group", "-n", "2", "--out", str(tmp_path / "m.csv")]
    fails_in_one_line(runner.invoke(app, [*base, "--transpose"]), "--transpose applies to matrix files",
                      "drop --transpose")
    fails_in_one_line(runner.invoke(app, [*base, "--method", "cife", "--beta", "0.5"]),
                      "--beta 0.5 applies only to --method 'mifs'")
    assert not (tmp_path / "m.csv").exists()
