"""What the command-line tests check of every command: one-line failures, JSON outputs, input files."""

import json


def fails_in_one_line(result, *words):
    """Exit code 2, one ``error:`` line on stderr holding every word, nothing on stdout."""
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert result.stdout.strip() == ""


def read_json(path):
    return json.loads(path.read_text())


def write_file(path, text):
    path.write_text(text)
    return path


def speaks_options(result, *python_names):
    """The one error line names parameters as options: none of ``python_names`` (outside quoted values), no
    ``name=value``, no library owner (``analyze:``) before the message."""
    import re

    line = result.stderr.strip()
    bare = re.sub(r"'[^']*'", "''", line)  # quoted values ('mann_whitney', a column's name) are the user's own
    assert not re.search(r"\b[a-z]+(_[a-z]+)+=", bare), line
    assert not re.match(r"error: [A-Za-z_]+: ", line), line
    for name in python_names:
        assert not re.search(rf"(?<![\w-]){name}(?![\w-])", bare), (name, line)
