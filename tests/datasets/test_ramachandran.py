"""Tests of the rotamer data: geometry, rotamer bins, the cached table, density regions, the builder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.integrate import dblquad

from paucity._errors import InputError, ParameterError, ShapeMismatchError
from paucity.datasets import (
    dihedral,
    ramachandran_density,
    rotamer_class,
    rotamer_table,
    rotamers,
    sparse_mask,
)
from paucity.datasets.ramachandran import CHI1_ATOM, MIN_MEASUREMENTS, RESIDUES

FRAGMENT = Path(__file__).resolve().parent.parent / "fixtures" / "2xcjA_fragment.pdb"


# -- geometry ------------------------------------------------------------------------------------------
def test_dihedral_of_hand_built_points():
    # Axis along z from the origin; p0 on +x, p3 on the ray at angle t in the xy-plane seen from +z.
    # Looking down the axis from p1 to p2, p3 is rotated by t from p0 (right-handed about +z).
    for t in (-150.0, -90.0, -30.0, 0.0, 45.0, 90.0, 179.0):
        p3 = [np.cos(np.radians(t)), np.sin(np.radians(t)), 1.0]
        assert np.degrees(dihedral([1, 0, 0], [0, 0, 0], [0, 0, 1], p3)) == pytest.approx(t, abs=1e-9)


def test_dihedral_trans_and_cis_and_range():
    # Planar zig-zag: trans is 180 degrees, returned as -180 (the range is [-pi, pi)).
    trans = dihedral([0, 1, 0], [0, 0, 0], [1, 0, 0], [1, -1, 0])
    cis = dihedral([0, 1, 0], [0, 0, 0], [1, 0, 0], [1, 1, 0])
    assert float(trans) == pytest.approx(-np.pi)
    assert float(cis) == pytest.approx(0.0)


def test_dihedral_is_vectorized_and_nan_when_collinear():
    p = np.array([[1.0, 0, 0], [0, 0, 0], [0, 0, 1], [0, 1, 1]])
    stacked = dihedral(*(np.stack([row, row]) for row in p))
    assert stacked.shape == (2,)
    assert np.allclose(stacked, np.pi / 2)
    assert np.isnan(dihedral([0, 0, 2], [0, 0, 0], [0, 0, 1], [0, 1, 1]))


def test_rotamer_bins_and_edges():
    degrees = np.array([0, 60, 119.99, 120, 180, 239.99, 240, 300, 359.99, -60, -180, 420])
    assert rotamer_class(np.radians(degrees)).tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 1, 0]


def test_rotamer_class_refuses_nan():
    with pytest.raises(InputError, match="NaN"):
        rotamer_class([0.1, np.nan])


# -- the cached table ---------------------------------------------------------------------------------
def test_loader_columns_ranges_and_counts():
    table = rotamers(None)
    assert list(table.columns) == ["structure", "chain", "resid", "icode", "residue", "phi", "psi", "chi1",
                                   "rotamer", "density"]
    assert set(table["residue"]) == set(RESIDUES)
    for column in ("phi", "psi", "chi1"):
        assert table[column].between(-np.pi, np.pi).all()
    assert np.array_equal(table["rotamer"], rotamer_class(table["chi1"].to_numpy()))
    counts = table["residue"].value_counts()
    assert counts.min() >= MIN_MEASUREMENTS
    # The counts stated in the docstring.
    assert counts["ARG"] == 491 and counts["TRP"] == 157 and counts["LEU"] == 912 and len(table) == 8026
    assert not table.duplicated(["structure", "chain", "resid", "icode"]).any()
    assert (table["density"] > 0).all()


def test_loader_known_chemistry():
    table = rotamers(None)
    # Most residues sit in the right-handed helix or sheet regions: phi < 0.
    assert (table["phi"] < 0).mean() > 0.85
    # Valine prefers t at chi1 (as defined with CG1); leucine prefers g-; serine has many g+.
    share = table.groupby("residue")["rotamer"].value_counts(normalize=True)
    assert share["VAL"].idxmax() == 1 and share["LEU"].idxmax() == 2 and share["SER"][0] > 0.35


def test_loader_one_residue_is_a_fresh_copy():
    arg = rotamers("arg")
    assert set(arg["residue"]) == {"ARG"} and len(arg) == 491
    arg.loc[0, "phi"] = 99.0
    assert rotamers("ARG").loc[0, "phi"] != 99.0


@pytest.mark.parametrize("bad", ["ALA", "GLY", "PRO", "XYZ", 3])
def test_loader_unknown_residue(bad):
    with pytest.raises(ParameterError, match="expected one of ARG, ASN"):
        rotamers(bad)


# -- density regions -----------------------------------------------------------------------------------
def test_density_integrates_to_one():
    reference = ([-1.0, 2.5, 3.0], [0.5, -3.0, 1.0])
    total, _ = dblquad(lambda psi, phi: ramachandran_density([phi], [psi], reference=reference,
                                                             concentration=5.0)[0],
                       -np.pi, np.pi, -np.pi, np.pi, epsabs=1e-6)
    assert total == pytest.approx(1.0, abs=1e-4)


def test_density_matches_direct_sum_and_is_periodic():
    rng = np.random.default_rng(0)
    ref = rng.uniform(-np.pi, np.pi, (2, 50))
    phi, psi = rng.uniform(-np.pi, np.pi, (2, 7))
    kappa = 8.0
    expected = np.array([np.mean(np.exp(kappa * (np.cos(a - ref[0]) + np.cos(b - ref[1]))))
                         for a, b in zip(phi, psi)]) / (2 * np.pi * np.i0(kappa)) ** 2
    got = ramachandran_density(phi, psi, reference=tuple(ref), concentration=kappa, chunk=3)
    assert np.allclose(got, expected, rtol=1e-12)
    shifted = ramachandran_density(phi + 2 * np.pi, psi - 4 * np.pi, reference=tuple(ref), concentration=kappa)
    assert np.allclose(shifted, got)


def test_shipped_density_column_is_the_estimate_over_all_residues():
    table = rotamers(None)
    some = table.sample(20, random_state=0)
    again = ramachandran_density(some["phi"], some["psi"], reference=(table["phi"], table["psi"]))
    assert np.allclose(again, some["density"], rtol=1e-3)


def test_sparse_region_grows_with_the_quantile():
    table = rotamers(None)
    masks = [sparse_mask(table["density"], q) for q in (0.05, 0.1, 0.2, 0.4)]
    for small, large in zip(masks, masks[1:]):
        assert np.all(large[small]) and large.sum() > small.sum()
    assert masks[1].mean() == pytest.approx(0.1, abs=0.005)
    # The sparse region lies away from the helix: no point of it within 10 degrees of (-63, -43).
    near_helix = (np.abs(np.degrees(table["phi"]) + 63) < 10) & (np.abs(np.degrees(table["psi"]) + 43) < 10)
    assert not np.any(masks[1] & near_helix)


def test_sparse_mask_reference_and_errors():
    assert sparse_mask([1.0, 3.0], 0.5, reference=[0.0, 2.0, 4.0]).tolist() == [True, False]
    with pytest.raises(ParameterError, match="quantile"):
        sparse_mask([1.0, 2.0], 1.0)
    with pytest.raises(InputError, match="NaN"):
        sparse_mask([1.0, np.nan], 0.5)
    with pytest.raises(ShapeMismatchError):
        ramachandran_density([0.0, 1.0], [0.0])
    with pytest.raises(InputError, match="NaN"):
        ramachandran_density([np.inf], [0.0])
    with pytest.raises(ParameterError, match="concentration"):
        ramachandran_density([0.0], [0.0], concentration=0.0)


# -- the builder ---------------------------------------------------------------------------------------
def test_builder_without_biotite_names_the_extra(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_biotite(name, *args, **kwargs):
        if name.startswith("biotite"):
            raise ImportError("no biotite here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_biotite)
    with pytest.raises(ImportError, match=r"paucity\[structure\]"):
        rotamer_table([FRAGMENT])


def test_builder_on_a_fragment_matches_the_shipped_rows(tmp_path):
    pytest.importorskip("biotite")
    built = rotamer_table([FRAGMENT], min_length=5)
    # Residues 2-12 of 2XCJ chain A: the termini (2 and 12) have no phi or no psi.
    assert built["resid"].tolist() == list(range(3, 12))
    assert built["residue"].tolist() == ["ASN", "THR", "ILE", "SER", "GLU", "LYS", "ILE", "VAL", "LEU"]
    assert set(built["structure"]) == {"2xcjA_fragment"} and set(built["chain"]) == {"A"}
    shipped = rotamers(None)
    shipped = shipped[shipped["structure"] == "2xcjA"].set_index("resid").loc[built["resid"]]
    for column in ("phi", "psi", "chi1"):
        assert np.allclose(built[column], shipped[column], atol=1e-4)
    assert np.array_equal(built["rotamer"], shipped["rotamer"])
    assert set(CHI1_ATOM) >= set(built["residue"])
    pd.testing.assert_frame_equal(rotamer_table(str(FRAGMENT), min_length=5), built)  # one path alone


def test_builder_keeps_one_copy_of_a_repeated_chain(tmp_path):
    pytest.importorskip("biotite")
    lines = [line for line in FRAGMENT.read_text().splitlines() if line.startswith("ATOM")]
    copy = [line[:21] + "B" + line[22:] for line in lines]
    path = tmp_path / "dimer.pdb"
    path.write_text("\n".join(lines + ["TER"] + copy + ["END"]) + "\n")
    built = rotamer_table({"dimer": path}, min_length=5)
    assert set(built["chain"]) == {"A"} and len(built) == 9


def test_builder_errors(tmp_path):
    pytest.importorskip("biotite")
    with pytest.raises(InputError, match="neither a PDB"):
        rotamer_table([tmp_path / "structure.xyz"])
    with pytest.raises(InputError, match="No residue"):
        rotamer_table([FRAGMENT], min_length=50)
