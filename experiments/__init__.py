"""The scripts that reproduce the seeds' experiments, one per experiment; each runs as ``python experiments/NAME.py``.

``docs/fidelity.md`` says for every figure and table of the seeds what these scripts reproduce, on
what data, and what they do not. Speed comparisons with the anchor libraries live in
``benchmarks/``, not here.
"""
