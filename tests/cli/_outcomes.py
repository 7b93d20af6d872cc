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
