"""Configuration shared by the whole test suite."""

# The scripts under fixtures/ regenerate the stored outputs of anchors (choix, PicturedRocks, ...), each run by the
# Python of the anchor's own environment; they hold no tests or doctests, and importing one without its anchor fails.
collect_ignore_glob = ["fixtures/*.py"]
