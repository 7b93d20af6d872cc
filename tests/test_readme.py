"""The README opens with the two-command quickstart, and the Makefile keeps its promise."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_quickstart_is_exactly_make_demo_and_make_test():
    text = (ROOT / "README.md").read_text()
    first_block = re.search(r"```(?:bash)?\n(.*?)```", text, flags=re.S).group(1)
    assert first_block.split("\n")[:-1] == ["make demo", "make test"]
    assert text.index("## Quickstart") < text.index("```")


def test_make_targets_create_the_venv_install_all_and_run():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^demo: \$\(STAMP\)\n\t\$\(BIN\)/paucity demo$", makefile, flags=re.M)
    assert re.search(r"^test: \$\(STAMP\)\n\t\$\(BIN\)/python -m pytest", makefile, flags=re.M)
    assert "-m venv $(VENV)" in makefile
    assert 'pip install --quiet -e ".[all]"' in makefile
    assert "make test" in (ROOT / ".ci" / "run").read_text()
