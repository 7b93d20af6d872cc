"""Importing the judgments capability pulls in neither AnnData nor Dask."""

import subprocess
import sys


def test_import_judgments_imports_neither_anndata_nor_dask():
    code = "import paucity.judgments, sys; assert 'anndata' not in sys.modules and 'dask' not in sys.modules"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_reading_judgments_imports_neither_anndata_nor_dask(tmp_path):
    path = tmp_path / "judgments.csv"
    path.write_text("object,attribute,value\n00024,NA,1\n00024,NA,0\n")
    code = (
        "import sys; from paucity.judgments import Judgments; "
        f"judgments = Judgments.read({str(path)!r}); "
        "assert judgments.objects.tolist() == ['00024'] and judgments.attributes.tolist() == ['NA']; "
        "assert 'anndata' not in sys.modules and 'dask' not in sys.modules"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
