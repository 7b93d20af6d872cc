"""Configuration shared by the whole test suite."""

# The scripts under fixtures/ regenerate the stored outputs of anchors (choix, PicturedRocks, ...), each run by the
# Python of the anchor's own environment; they hold no tests or doctests, and importing one without its anchor fails.
collect_ignore_glob = ["fixtures/*.py"]

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def postgres_server():
    """A throw-away PostgreSQL server for this test process (skipped, with the reason, where none can start)."""
    from tests.postgres import PostgresServer, why_not

    reason = why_not()
    if reason is not None:
        pytest.skip(reason)
    server = PostgresServer()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """Where a session lives: an SQLite file, or a fresh database on the test PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "session.db")
    return request.getfixturevalue("postgres_server").new_database()
