"""Backbone angles and chi1 rotamers of real protein structures (seed 003, §4.6).

- :func:`rotamers`: the cached table of (Phi, Psi), chi1 and its rotamer
  class per residue, read from the compressed CSV that ships with paucity
  (no structure library needed).
- :func:`rotamer_table`: rebuilds that table from structure files (PDB or
  mmCIF, optionally gzipped) with biotite (``pip install paucity[structure]``
  or ``pip install biotite``).
- :func:`dihedral` and :func:`rotamer_class`: the geometry, in numpy.
- :func:`ramachandran_density` and :func:`sparse_mask`: dense and sparse
  regions of the Ramachandran plot from the data's own density.

The shipped table was built from the protein chains in the test data of the
``mdanalysistests`` 2.11.0 package on PyPI (see :func:`rotamers`).
"""

from __future__ import annotations

import gzip
import numbers
from collections.abc import Mapping
from difflib import SequenceMatcher
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import i0e

from .._errors import InputError, ParameterError, ShapeMismatchError
from .._validation import Interval, check_parameter

__all__ = [
    "RESIDUES",
    "ROTAMER_NAMES",
    "CHI1_ATOM",
    "MIN_MEASUREMENTS",
    "DENSITY_CONCENTRATION",
    "dihedral",
    "rotamer_class",
    "rotamers",
    "rotamer_table",
    "ramachandran_density",
    "sparse_mask",
]

# The fourth atom of chi1 (N-CA-CB-X) of the 17 residue types with three chi1 rotamers
# (alanine and glycine have no chi1, proline has two rotamers).
CHI1_ATOM = {
    "ARG": "CG", "ASN": "CG", "ASP": "CG", "CYS": "SG", "GLN": "CG", "GLU": "CG", "HIS": "CG",
    "ILE": "CG1", "LEU": "CG", "LYS": "CG", "MET": "CG", "PHE": "CG", "SER": "OG", "THR": "OG1",
    "TRP": "CG", "TYR": "CG", "VAL": "CG1",
}
RESIDUES = tuple(sorted(CHI1_ATOM))
# Class 0: chi1 in [0, 120) degrees (g+, around +60); 1: [120, 240) (t, around 180);
# 2: [240, 360) (g-, around -60 = 300).
ROTAMER_NAMES = ("g+", "t", "g-")
# A residue type has "enough measurements" for the rotamer experiment from this many rows on.
MIN_MEASUREMENTS = 150
# Concentration (per angle, radians^-2 roughly its inverse squared bandwidth) of the von Mises
# kernel density estimate of the shipped ``density`` column.
DENSITY_CONCENTRATION = 20.0
# Longest C(i-1)-N(i) distance, in angstrom, still read as a peptide bond (1.33 in a structure).
_PEPTIDE_BOND = 2.0
# Chains whose sequences are this alike (difflib's ratio) count as copies of one protein.
_SAME_CHAIN = 0.9
_COLUMNS = ("structure", "chain", "resid", "icode", "residue", "phi", "psi", "chi1", "rotamer", "density")
_DATA_FILE = "rotamers.csv.gz"
# The structures of the shipped table: paths inside ``MDAnalysisTests/data`` of the
# ``mdanalysistests`` 2.11.0 package (PyPI). The 50 single-chain PDB entries of its DSSP
# test set (without its hydrogen-placement case and the duplicate ``1mr1D_failing``) and
# the other files that are PDB entries of proteins (crystal or NMR); peptides, simulation
# frames, force-field test systems and the D-amino-acid gramicidin are left out.
SOURCE_PACKAGE = "mdanalysistests==2.11.0"
SOURCE_FILES = tuple(f"dssp/{code}.pdb.gz" for code in (
    "1ahsA", "1bvyF", "1dx5I", "1eteA", "1h4aX", "1i8nA", "1lpbA", "1mr1D", "1or4A", "1pdoA",
    "1v7mV", "1y1lA", "2a2lA", "2cayA", "2cviA", "2fvvA", "2gu3A", "2i39A", "2j49A", "2qdlA",
    "2va0A", "2xcjA", "2xdgA", "2xr6A", "3a4rA", "3aqgA", "3e8mA", "3ejfA", "3fhkA", "3gfsA",
    "3gknA", "3gwiA", "3hklA", "3ieyB", "3ii2A", "3k7pA", "3l4rA", "3lqcA", "3nbkA", "3nngA",
    "3ny7A", "3nzmA", "3on9A", "3pivA", "3q4oA", "3so6A", "3t5gB", "3vjzA", "4dkcA", "4gcnA",
)) + (
    "19hc.pdb.gz", "1a28.pdb.gz", "1hvr.pdb", "1osm.pdb.gz", "4E43.pdb", "adk_open.pdb", "adk_closed.pdb",
    "merge/2zmm/protein.pdb", "mmcif/1BD2.cif.gz", "mmcif/3KPR.cif.gz", "mmcif/3PWP.cif.gz",
    "mmcif/5PTI.cif.gz",
)


# -- geometry ---------------------------------------------------------------------------------------
def dihedral(p0, p1, p2, p3) -> np.ndarray:
    """Dihedral angles of four points (or four arrays of points), in radians in [-pi, pi).

    Parameters
    ----------
    p0, p1, p2, p3 : array-like, shape (..., 3)
        Cartesian coordinates; the angle is the rotation about the axis
        ``p1 -> p2`` that brings the plane (p0, p1, p2) onto (p1, p2, p3),
        positive clockwise seen along the axis (the IUPAC convention).

    Returns
    -------
    numpy.ndarray
        The angles, shape ``(...)``; NaN where three of the points are collinear.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.datasets import dihedral
    >>> round(float(np.degrees(dihedral([1, 0, 0], [0, 0, 0], [0, 0, 1], [0, 1, 1]))), 1)
    90.0
    """
    p0, p1, p2, p3 = (np.asarray(p, dtype=float) for p in (p0, p1, p2, p3))
    b0, b1, b2 = p0 - p1, p2 - p1, p3 - p2
    axis = b1 / np.linalg.norm(b1, axis=-1, keepdims=True)
    v = b0 - np.sum(b0 * axis, axis=-1, keepdims=True) * axis
    w = b2 - np.sum(b2 * axis, axis=-1, keepdims=True) * axis
    x = np.sum(v * w, axis=-1)
    y = np.sum(np.cross(axis, v) * w, axis=-1)
    with np.errstate(invalid="ignore"):
        degenerate = (np.linalg.norm(v, axis=-1) < 1e-12) | (np.linalg.norm(w, axis=-1) < 1e-12)
    angle = np.arctan2(y, x)
    angle = np.where(angle >= np.pi, angle - 2 * np.pi, angle)
    return np.where(degenerate, np.nan, angle)


def rotamer_class(chi1) -> np.ndarray:
    """The chi1 rotamer class: 0 (g+, [0, 120) degrees), 1 (t, [120, 240)), 2 (g-, [240, 360)).

    Parameters
    ----------
    chi1 : array-like of float
        Angles in radians (any range; taken modulo 2 pi).

    Returns
    -------
    numpy.ndarray of int64
        The class of each angle; names in :data:`ROTAMER_NAMES`.

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.datasets import rotamer_class
    >>> rotamer_class(np.radians([60, 180, -60, 119.9, 240])).tolist()
    [0, 1, 2, 0, 2]
    """
    chi1 = np.asarray(chi1, dtype=float)
    if not np.all(np.isfinite(chi1)):
        raise InputError("chi1 has NaN or infinite values; expected finite angles in radians. "
                         "Drop the residues without a measured chi1 first.")
    # Rounded to 1e-9 degree, so that a bin edge given in radians (np.radians(240)) is on its edge.
    degrees = np.mod(np.round(np.degrees(chi1), 9), 360.0)
    return np.minimum((degrees // 120.0).astype(np.int64), 2)


def wrap_angles(angle) -> np.ndarray:
    """Angles in [-pi, pi) (radians).

    Examples
    --------
    >>> np.round(wrap_angles([np.pi, 3 * np.pi / 2, -np.pi / 2]), 4)
    array([-3.1416, -1.5708, -1.5708])
    """
    return np.mod(np.asarray(angle, dtype=float) + np.pi, 2 * np.pi) - np.pi


# -- the builder ---------------------------------------------------------------------------------------
def _biotite():
    try:
        import biotite.structure as struc  # noqa: F401
        import biotite.structure.io.pdb as pdb  # noqa: F401
        import biotite.structure.io.pdbx as pdbx  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "rotamer_table() reads structure files with biotite, which is not installed. Install it with "
            "`pip install paucity[structure]` (or `pip install biotite`); rotamers() needs no biotite."
        ) from exc
    return struc, pdb, pdbx


def _read_first_model(path: Path):
    """The first model of a PDB or mmCIF file (optionally gzipped), first altloc of each atom."""
    _, pdb, pdbx = _biotite()
    name = path.name.lower()
    base = name[:-3] if name.endswith(".gz") else name
    if not base.endswith((".cif", ".pdbx", ".mmcif", ".pdb", ".ent")):
        raise InputError(f"{path} is neither a PDB (.pdb, .ent) nor an mmCIF (.cif, .pdbx) file (optionally .gz); "
                         "give structure files only.")
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt") as handle:
        if base.endswith((".cif", ".pdbx", ".mmcif")):
            return pdbx.get_structure(pdbx.CIFFile.read(handle), model=1, altloc="first")
        return pdb.PDBFile.read(handle).get_structure(model=1, altloc="first")


def _chain_rows(atoms, structure: str, chain: str) -> list[dict]:
    """One row per residue of the 17 types with phi, psi and chi1 all measured."""
    struc, _, _ = _biotite()
    starts = struc.get_residue_starts(atoms)
    stops = np.append(starts[1:], atoms.array_length())
    residues = []
    for start, stop in zip(starts, stops):
        names = atoms.atom_name[start:stop]
        coords = {}
        for atom_name, coord in zip(names, atoms.coord[start:stop]):
            coords.setdefault(str(atom_name), coord)  # the first copy of a repeated name
        residues.append((str(atoms.res_name[start]), int(atoms.res_id[start]), str(atoms.ins_code[start]), coords))
    rows = []
    for i, (res_name, res_id, ins_code, atom) in enumerate(residues):
        if res_name not in CHI1_ATOM or i == 0 or i == len(residues) - 1:
            continue  # chain termini have no phi or no psi
        before, after = residues[i - 1][3], residues[i + 1][3]
        needed = ("N", "CA", "C", "CB", CHI1_ATOM[res_name])
        if any(a not in atom for a in needed) or "C" not in before or "N" not in after:
            continue
        if (np.linalg.norm(before["C"] - atom["N"]) > _PEPTIDE_BOND
                or np.linalg.norm(atom["C"] - after["N"]) > _PEPTIDE_BOND):
            continue  # a chain break: the neighbour is not bonded
        phi = dihedral(before["C"], atom["N"], atom["CA"], atom["C"])
        psi = dihedral(atom["N"], atom["CA"], atom["C"], after["N"])
        chi1 = dihedral(atom["N"], atom["CA"], atom["CB"], atom[CHI1_ATOM[res_name]])
        if not np.all(np.isfinite([phi, psi, chi1])):
            continue
        rows.append({"structure": structure, "chain": chain, "resid": res_id, "icode": ins_code,
                     "residue": res_name, "phi": float(wrap_angles(phi)), "psi": float(wrap_angles(psi)),
                     "chi1": float(wrap_angles(chi1))})
    return rows


def _same_chain(a: list[str], b: list[str]) -> bool:
    """Two chains count as one protein when their residue sequences are at least 90 % alike."""
    return SequenceMatcher(None, a, b, autojunk=False).ratio() >= _SAME_CHAIN


def rotamer_table(paths, *, min_length: int = 20, concentration: float = DENSITY_CONCENTRATION) -> pd.DataFrame:
    """Build the rotamer table from protein structure files (needs biotite).

    Parameters
    ----------
    paths : str, path-like, iterable of them, or mapping of str to path
        PDB (``.pdb``, ``.ent``) or mmCIF (``.cif``, ``.pdbx``) files,
        optionally gzipped; a mapping gives each file the name written to
        the ``structure`` column (otherwise the file name without
        suffixes). Only the first model of each file is read, and of each
        atom only its first alternative location.
    min_length : int, default 20
        Protein chains with fewer amino-acid residues are skipped (peptides,
        ligands, waters).
    concentration : float, default DENSITY_CONCENTRATION
        Of the von Mises kernel density estimate in the ``density`` column.

    Returns
    -------
    pandas.DataFrame
        One row per residue of the 17 types in :data:`RESIDUES`, with
        columns ``structure`` (the file name without suffixes), ``chain``,
        ``resid``, ``icode`` (the insertion code, "" for none),
        ``residue``, ``phi``, ``psi``, ``chi1`` (radians in [-pi, pi)),
        ``rotamer`` (:func:`rotamer_class`) and ``density``
        (:func:`ramachandran_density` of (phi, psi) over all rows).

    Raises
    ------
    ImportError
        When biotite is not installed.
    InputError
        When a file is not a PDB or mmCIF file, or no residue could be measured.

    Notes
    -----
    Copies of one protein are kept once: a chain is dropped when its
    sequence of observed residues is at least 90 % alike (difflib's ratio)
    to that of a chain kept before it (files in sorted name order, chains
    in identifier order). So the chains of a homodimer, two files of the
    same protein, or two conformations of one enzyme count once.
    A residue is kept when it is one of the 17 types, has a bonded
    neighbour on both sides (C(i-1)-N(i) and C(i)-N(i+1) within 2 angstrom,
    so chain termini and breaks are dropped) and has all of N, CA, C, CB
    and its chi1 atom (:data:`CHI1_ATOM`).
    """
    struc, _, _ = _biotite()
    check_parameter(min_length, "min_length", [Interval(numbers.Integral, 1, None)], owner="rotamer_table")
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if isinstance(paths, Mapping):
        named = sorted((str(name), Path(path)) for name, path in paths.items())
    else:
        named = sorted((Path(p).name.split(".")[0], Path(p)) for p in paths)
    kept: list[str] = []
    rows: list[dict] = []
    for structure, path in named:
        atoms = _read_first_model(path)
        atoms = atoms[struc.filter_amino_acids(atoms) & ~atoms.hetero]
        if atoms.array_length() == 0:
            continue
        for chain in np.unique(atoms.chain_id):
            chain_atoms = atoms[atoms.chain_id == chain]
            starts = struc.get_residue_starts(chain_atoms)
            sequence = [str(name) for name in chain_atoms.res_name[starts]]
            if len(starts) < min_length or any(_same_chain(sequence, other) for other in kept):
                continue
            kept.append(sequence)
            rows.extend(_chain_rows(chain_atoms, structure, str(chain)))
    if not rows:
        raise InputError("No residue with phi, psi and chi1 could be measured in the given files; expected "
                         f"protein chains of at least {min_length} residues.")
    frame = pd.DataFrame(rows)
    frame["rotamer"] = rotamer_class(frame["chi1"].to_numpy())
    frame["density"] = ramachandran_density(frame["phi"], frame["psi"], concentration=concentration)
    return frame[list(_COLUMNS)]


# -- the loader ----------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def _cached_table() -> pd.DataFrame:
    with resources.files("paucity.datasets").joinpath("data", _DATA_FILE).open("rb") as handle:
        frame = pd.read_csv(handle, compression="gzip", dtype={"chain": str, "icode": str}, keep_default_na=False)
    return frame


def rotamers(residue: str | None = "ARG") -> pd.DataFrame:
    """Backbone angles (Phi, Psi) and chi1 rotamers of real protein structures.

    Parameters
    ----------
    residue : str or None, default "ARG"
        Three-letter code of one of the 17 residue types in :data:`RESIDUES`
        (case-insensitive); None gives all of them.

    Returns
    -------
    pandas.DataFrame
        One row per residue, columns ``structure``, ``chain``, ``resid``,
        ``icode`` (the PDB insertion code, "" for none), ``residue``,
        ``phi``, ``psi``, ``chi1`` (radians in [-pi, pi)),
        ``rotamer`` (0 = g+, chi1 in [0, 120) degrees; 1 = t, [120, 240);
        2 = g-, [240, 360); names in :data:`ROTAMER_NAMES`) and ``density``
        (the von Mises kernel density estimate of (Phi, Psi) over all 17
        types, :func:`ramachandran_density`, concentration 20). A fresh copy
        on each call.

    Raises
    ------
    ParameterError
        When ``residue`` is not one of the 17 types.

    Notes
    -----
    Seed 003, §4.6: rotamer prediction from backbone angles for the 17
    amino acids with three rotamers at the first side-chain dihedral (all
    but alanine, glycine and proline). The table is read from a compressed
    CSV shipped with paucity; :func:`rotamer_table` rebuilt it from the
    protein structures in the test data of ``mdanalysistests`` 2.11.0 (PyPI):
    the 50 single-chain PDB entries of its DSSP test set and 12 more files of
    protein crystal structures (:data:`SOURCE_FILES`; first model only, one
    chain per protein: 65 chains of 60 structures, 8,026 residues).

    Rows per residue type (all have at least :data:`MIN_MEASUREMENTS` = 150,
    "enough measurements" for the rotamer experiment; the fewest, 157, are
    tryptophans):

    ====  ====  ====  ====  ====  ====  ====  ====  ====
    ARG   ASN   ASP   CYS   GLN   GLU   HIS   ILE   LEU
    ====  ====  ====  ====  ====  ====  ====  ====  ====
    491   381   584   208   424   695   246   507   912
    ====  ====  ====  ====  ====  ====  ====  ====  ====

    ====  ====  ====  ====  ====  ====  ====  ====
    LYS   MET   PHE   SER   THR   TRP   TYR   VAL
    ====  ====  ====  ====  ====  ====  ====  ====
    546   203   400   659   540   157   367   706
    ====  ====  ====  ====  ====  ====  ====  ====

    The kernel density's concentration, 20 (a width of about 13 degrees),
    is a smoothing choice: leave-one-out likelihood keeps rising up to
    concentration 80 and beyond, because helices repeat nearly the same
    (Phi, Psi) many times, but the seed's regions are regions of the plot,
    not single points.

    Examples
    --------
    >>> from paucity.datasets import rotamers
    >>> arg = rotamers("ARG")
    >>> sorted(arg["rotamer"].unique().tolist())
    [0, 1, 2]
    >>> bool(arg["phi"].between(-3.1416, 3.1416).all())
    True
    """
    table = _cached_table()
    if residue is None:
        return table.copy()
    if not isinstance(residue, str) or residue.upper() not in RESIDUES:
        raise ParameterError(
            f"residue={residue!r} is not one of the 17 residue types with three chi1 rotamers; "
            f"expected one of {', '.join(RESIDUES)}, or None for all."
        )
    return table[table["residue"] == residue.upper()].reset_index(drop=True)


# -- dense and sparse regions ------------------------------------------------------------------------
def _angles(values, name: str) -> np.ndarray:
    array = np.asarray(values, dtype=float).ravel()
    if not np.all(np.isfinite(array)):
        raise InputError(f"{name} has NaN or infinite values; expected finite angles in radians.")
    return array


def ramachandran_density(phi, psi, *, reference=None, concentration: float = DENSITY_CONCENTRATION,
                         chunk: int = 2048) -> np.ndarray:
    """Von Mises kernel density estimate on the torus of (Phi, Psi) pairs.

    Parameters
    ----------
    phi, psi : array-like of float, shape (n,)
        Where the density is evaluated, in radians (any range).
    reference : tuple (phi, psi) of arrays, optional
        The sample the estimate is built from; by default ``(phi, psi)`` itself.
    concentration : float, default 20
        kappa of the product kernel ``exp(kappa (cos(d_phi) + cos(d_psi) - 2))``;
        its width is about ``1 / sqrt(kappa)`` radians (13 degrees at 20).
    chunk : int, default 2048
        Evaluation points per block (bounds the memory to ``chunk * n_reference``).

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        The density in rad^-2 (it integrates to 1 over [-pi, pi)^2).

    Examples
    --------
    >>> import numpy as np
    >>> from paucity.datasets import ramachandran_density
    >>> density = ramachandran_density([0.0, np.pi], [0.0, np.pi], reference=([0.0], [0.0]))
    >>> bool(density[0] > 1000 * density[1])
    True
    """
    phi, psi = _angles(phi, "phi"), _angles(psi, "psi")
    if phi.shape != psi.shape:
        raise ShapeMismatchError(f"phi has {phi.size} angles and psi {psi.size}; expected one psi per phi.")
    if reference is None:
        ref_phi, ref_psi = phi, psi
    else:
        ref_phi, ref_psi = _angles(reference[0], "reference phi"), _angles(reference[1], "reference psi")
        if ref_phi.shape != ref_psi.shape or ref_phi.size == 0:
            raise ShapeMismatchError("reference must be two arrays (phi, psi) of the same, non-zero length.")
    kappa = check_parameter(concentration, "concentration", [Interval(numbers.Real, 0, None, closed="neither")],
                            owner="ramachandran_density")
    # One von Mises density is exp(kappa (cos d - 1)) / (2 pi i0e(kappa)), finite for large kappa.
    norm = (2 * np.pi * i0e(kappa)) ** 2 * ref_phi.size
    out = np.empty(phi.size)
    for start in range(0, phi.size, chunk):
        sl = slice(start, start + chunk)
        log_kernel = kappa * (np.cos(phi[sl, None] - ref_phi[None]) + np.cos(psi[sl, None] - ref_psi[None]) - 2)
        out[sl] = np.exp(log_kernel).sum(axis=1) / norm
    return out


def sparse_mask(density, quantile: float = 0.1, *, reference=None) -> np.ndarray:
    """Points in the sparse region: density below a quantile of the reference densities.

    Parameters
    ----------
    density : array-like of float
        Densities of the points to classify (e.g. the ``density`` column of
        :func:`rotamers`).
    quantile : float in (0, 1), default 0.1
        The share of the reference points that lie in the sparse region;
        growing it grows the region (seed 003, Fig. 4.4).
    reference : array-like of float, optional
        Densities that define the threshold; by default ``density`` itself.
        The experiment uses all residues' densities, so that the regions are
        the same for every residue type, as the seed's shaded regions are.

    Returns
    -------
    numpy.ndarray of bool
        True where the density is below the threshold.

    Examples
    --------
    >>> from paucity.datasets import sparse_mask
    >>> sparse_mask([0.1, 0.2, 5.0, 7.0, 9.0], 0.3).tolist()
    [True, True, False, False, False]
    """
    density = np.asarray(density, dtype=float)
    if not np.all(np.isfinite(density)):
        raise InputError("density has NaN or infinite values; expected finite densities.")
    q = check_parameter(quantile, "quantile", [Interval(numbers.Real, 0, 1, closed="neither")],
                        owner="sparse_mask")
    reference = density if reference is None else np.asarray(reference, dtype=float)
    if reference.size == 0:
        raise InputError("reference is empty; expected the densities that define the sparse region.")
    return density < np.quantile(reference, q)
