"""The parts of the guides that report the seeds' reproduced experiments, and the numbers written in them.

``tests/test_doc_numbers.py`` checks that every number in these sections is accounted for. This module only
finds things: which stretches of which page are reproduction sections (``SECTIONS``), where the numbers in them
stand, which of them are not numbers of a result at all (references such as "Figure 2.5", code, headings), and
where a quoted text or a table lies on the raw page. Every function takes the page's text, so that a test can
hand it a changed copy of a page and see the checks fail.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

# A number as the pages write it: a sign (ASCII or the minus sign), digits, groups of a thousands comma or a
# decimal point, an exponent. Not inside a word (fig2_5, x₃ are names, not numbers).
NUMBER = re.compile(r"(?<![\w.$])[−+-]?\d+(?:[.,]\d+)*(?:e[−+-]?\d+)?(?![A-Za-z_])|(?<=\$)\d+(?:[.,]\d+)*")

# References to the seeds' and the pages' own numbering: "Figure 2.5", "Figures 3.4–3.6", "Table 2.1", "§4.4",
# "eq. 3.5", "eqs. 4.5-4.7", "(4.8)", "Theorem 5.4.2", "Algorithms 6 and 7", "seed 003", "Example 3".
_REFERENCE_WORD = (r"(?:Figures?|Fig\.|Tables?|§|eqs?\.|equations?|Examples?|Theorems?|Corollary|Algorithms?"
                   r"|[Cc]hapters?|ch\.|inequality|Panels?)")
_REFERENCE_NUMBER = r"\(?\d+(?:\.\d+)*(?:\((?:[a-z](?:, ?[a-z])*)\)|[a-z])?\)?"
REFERENCE = re.compile(
    rf"{_REFERENCE_WORD}\s*{_REFERENCE_NUMBER}(?:\s*(?:–|-|and|,(?= ?\d+\.\d))\s*{_REFERENCE_NUMBER})*"
    r"|\b[Ss]eeds? 00\d\b"  # a seed document: seed 003 (not a random seed: seed 0 is a setting)
    r"|(?<![\w.])\([2-5]\.\d{1,2}\)"  # an equation or figure of the seed's chapters 2-5 by its number: (4.8)
    r"|(?<=[( ])[2-5]\.\d\.\d\b"  # a section or theorem of the seed: 3.5.3, 5.4.2
    r"|\b\d+\.\d+\.\d+\b"  # a version: crowd-kit 1.4.2, scikit-learn 1.9.1
)


@dataclass(frozen=True)
class Section:
    """A stretch of a page: from the first occurrence of ``start`` (the page's beginning if None) to the first
    occurrence of ``end`` after it (the page's end if None)."""

    page: str
    start: str | None
    end: str | None

    @property
    def id(self) -> str:
        return f"{self.page}: {self.start[:50] if self.start else 'the whole page'}"

    def span(self, raw: str) -> tuple[int, int]:
        begin = 0 if self.start is None else raw.find(self.start)
        if begin < 0:
            raise LookupError(f"{self.page}: the section {self.start!r} is not on the page")
        end = len(raw) if self.end is None else raw.find(self.end, begin + 1)
        if end < 0:
            raise LookupError(f"{self.page}: the end {self.end!r} of the section {self.start!r} is not on the page")
        return begin, end


# The reproduction sections: the fidelity page, and each guide's account of the seed's experiments (the run, its
# numbers and its reading beside the seed's). Sections on how to use a capability, its speed (benchmarks/ and
# docs/benchmarks.md) and its tests are not listed.
SECTIONS = (
    Section("fidelity.md", None, None),
    Section("gp.md", "Selective shrinkage: with a fixed kernel of amplitude", "```python"),
    Section("gp.md", "### Selective shrinkage in classification, measured", "Fitting the kernel and b, and the gradient"),
    Section("gp.md", "### Selective shrinkage (§4.4)", "## Data: backbone angles"),
    Section("gp.md", "### Dense and sparse regions", "### Synthetic fallback"),
    Section("gp.md", "## The rotamer experiment (Figures 4.3 and 4.4)", "## Speed (benchmark)"),
    Section("clustering.md", "## Reproduced experiments", None),
    Section("crowd.md", "## Table 3.1 on a simulated crowd", None),
    Section("ranking.md", "## Reproduced figures", "## Command line"),
    Section("differences.md", "## Reproduced experiments", None),
    Section("judgments.md", "## Experiments (seed 002, §4)", None),
    Section("markers-benchmark.md", "## Results", None),
)


class Normalized:
    """A page as the quotes are matched against it: the bold marks dropped and every whitespace run one space,
    with the raw position of each character kept, so that a match can be located on the raw page."""

    def __init__(self, raw: str):
        keep = np.ones(len(raw), dtype=bool)
        for m in re.finditer(r"\*\*", raw):
            keep[m.start() : m.end()] = False
        kept = np.flatnonzero(keep)
        space = np.fromiter((c.isspace() for c in raw), dtype=bool, count=len(raw))[kept]
        first = ~(space & np.concatenate(([False], space[:-1])))  # drop a space that follows a space
        self.where = kept[first].tolist()
        self.text = "".join(" " if raw[i].isspace() else raw[i] for i in self.where)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """The raw spans of every occurrence of ``text`` (matched with whitespace runs as one space)."""
        text = re.sub(r"\s+", " ", text)
        found, at = [], self.text.find(text)
        while at >= 0 and text:
            found.append((self.where[at], self.where[at + len(text) - 1] + 1))
            at = self.text.find(text, at + 1)
        return found


def table_span(raw: str, anchors: tuple[str, ...]) -> tuple[int, int]:
    """The raw span of the first table after the anchors (found one after the other), as markdown_table reads it."""
    at = 0
    for anchor in anchors:
        found = raw.find(anchor, at)
        if found < 0:
            raise LookupError(f"{anchor!r} not found (after the previous anchors)")
        at = found + len(anchor)
    start = raw.find("\n|", at - 1) + 1
    if start <= 0:
        raise LookupError(f"no table after {anchors[-1]!r}")
    end = start
    while end < len(raw) and raw.startswith("|", end):
        newline = raw.find("\n", end)
        end = len(raw) if newline < 0 else newline + 1
    return start, end


def not_numbers(raw: str) -> list[tuple[int, int]]:
    """Spans whose digits are not numbers of a result: code (fenced blocks run by tests/test_docs.py or shown as
    commands and their output, and inline code), link targets, headings, HTML comments, and references to the
    seeds' and the pages' numbering."""
    spans = []
    for pattern, flags in ((r"```.*?```", re.S), (r"`[^`\n]*`", 0), (r"\]\([^)\s]*\)", 0), (r"^#+ .*$", re.M),
                           (r"<!--.*?-->", re.S)):
        spans += [m.span() for m in re.finditer(pattern, raw, flags)]
    spans += [m.span() for m in REFERENCE.finditer(raw)]
    return spans


@dataclass(frozen=True)
class Number:
    text: str
    start: int
    end: int

    @property
    def decimal(self) -> bool:
        """Written with a fractional part (0.20, +1.16, 38.5) or an exponent: the numbers every one of which must
        be declared against a stored result or listed as not a result."""
        return "." in self.text or "e" in self.text


class Spans:
    """Spans of a text, merged, for asking quickly whether a position lies in one."""

    def __init__(self, spans):
        self.starts, self.ends = [], []
        for a, b in sorted(spans):
            if self.ends and a <= self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], b)
            else:
                self.starts.append(a)
                self.ends.append(b)

    def __contains__(self, position: int) -> bool:
        k = bisect.bisect_right(self.starts, position) - 1
        return k >= 0 and position < self.ends[k]


@lru_cache(maxsize=32)
def _skipped(raw: str) -> Spans:
    return Spans(not_numbers(raw))


def numbers(raw: str, begin: int, end: int) -> list[Number]:
    """The numbers written between two raw positions, leaving out those inside ``not_numbers``."""
    skip = _skipped(raw)
    return [Number(m.group(), m.start(), m.end()) for m in NUMBER.finditer(raw, begin, end) if m.start() not in skip]


def context(raw: str, start: int, end: int, width: int = 50) -> str:
    return re.sub(r"\s+", " ", raw[max(0, start - width) : end + width])
