"""The one helper behind every lazy package face: names load on first use, moved names warn, unknown names fail."""

import importlib
import subprocess
import sys

import pytest

FACES = ["paucity", "paucity.crowd", "paucity.ranking", "paucity.gp", "paucity.clustering", "paucity.io",
         "paucity.markers"]


@pytest.mark.parametrize("name", FACES)
def test_every_face_serves_its_names_and_refuses_others_alike(name):
    module = importlib.import_module(name)
    with pytest.raises(AttributeError, match=f"module '{name}' has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018
    for public in getattr(module, "__all__", []):
        if public != "__version__":
            assert public in dir(module)


def test_a_name_is_loaded_only_when_used():
    code = ("import sys, paucity.crowd\n"
            "assert 'paucity.crowd.bbmc' not in sys.modules\n"
            "paucity.crowd.BBMC\n"
            "assert 'paucity.crowd.bbmc' in sys.modules and 'BBMC' in vars(paucity.crowd)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_a_moved_name_warns_at_every_use_and_still_works():
    estimates = importlib.import_module("paucity.judgments.estimates")
    for _ in range(2):
        with pytest.warns(FutureWarning, match="estimates.full_objective is deprecated"):
            assert estimates.full_objective is importlib.import_module("paucity.judgments.objective").full_objective
    assert "full_objective" not in dir(estimates)
