"""The settings of the active loop, declared once: :class:`SessionSettings` and its :class:`Setting` records.

Each setting of the active loop — its default, what it accepts, the one-line
hint a refusal ends with, its documentation and its command-line option — is
declared once, as a field of :class:`SessionSettings`. Everything else is
derived from that declaration:

- :class:`~paucity.clustering.ActiveSpectralClustering`'s parameters, their
  checks (``_parameter_constraints``, ``_parameter_hints``) and their
  documentation;
- :meth:`ClusteringSession.create/open <paucity.clustering.ClusteringSession.create>`,
  :func:`~paucity.clustering.simulate` and the annotation page, which take the
  settings by name and refuse a name that is not one;
- what a session keeps in its database, and what a session stored before a
  setting existed reads for it (:attr:`Setting.before`);
- the options of ``paucity cluster-active``, ``paucity cluster-session`` and
  ``paucity serve annotate``, their help and how their text is read.

Adding a setting is a field here and the code that uses it (the loop, most
often). This module imports nothing heavy: the command line builds its help
from it.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .._errors import ParameterError
from .._spelling import owner_prefix, spelled
from .._constraints import BOOLEAN, RANDOM_STATE, Interval, Options, check_parameter

__all__ = ["Setting", "SessionSettings", "SETTINGS", "STRATEGIES", "CUTS", "settings_for", "defaults",
           "constraints", "hints", "check_settings", "refuse_unknown", "parse_strategy", "parse_budget",
           "parameters_doc", "fill_parameters_doc", "estimator_init", "setting"]

#: The strategies of the loop, as the library names them (seed 003: Algorithm 1, Algorithm 2, the baseline).
STRATEGIES = ("iu_red", "shamir_tishby", "random")
#: How the clusters are read off each split of v̂₂ (:func:`~paucity.clustering.spectral_bisection`).
CUTS = ("sign", "ratio", "normalized")

_SAME = object()  # "as the session's": the estimator's default and constraints where they are the session's
_REQUIRED = object()  # a stored session must hold the setting (it existed when sessions were first stored)


def parse_strategy(text: str) -> str:
    """A strategy as a command line writes it (``iu-red``) in the library's name (``iu_red``).

    Examples
    --------
    >>> parse_strategy("IU-RED"), parse_strategy("shamir_tishby")
    ('iu_red', 'shamir_tishby')
    """
    key = text.strip().lower().replace("-", "_")
    if key not in STRATEGIES:
        choices = ", ".join(name.replace("_", "-") for name in STRATEGIES[:-1])
        raise ParameterError(f"{spelled('strategy')} must be {choices} or {STRATEGIES[-1]}, got {text!r}.")
    return key


def parse_budget(text: str) -> int | float:
    """A budget as text: an integer (measurements), or a fraction written with a decimal point.

    Examples
    --------
    >>> parse_budget("300"), parse_budget("0.2")
    (300, 0.2)
    """
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ParameterError(
            f"{spelled('budget')} must be a number of measurements (e.g. 300) or a fraction of the pairs (e.g. 0.2), "
            f"got {text!r}."
        ) from None


@dataclass(frozen=True)
class Setting:
    """One setting of the active loop, as :class:`SessionSettings` declares it.

    Attributes
    ----------
    name : str
        The Python name (the estimator's parameter, the session's keyword, the key stored).
    default
        A new session's value when the setting is not given.
    constraints : tuple
        What a session accepts (:func:`paucity._validation.check_parameter`'s constraints).
    doc : str
        What the setting does, as the estimator's documentation says it (numpydoc text).
    help : str
        What the setting does, as a command's ``--help`` says it (one or two sentences).
    hint : str or None
        The sentence a refusal of a bad value ends with (in Python words; a
        command line reads the option where the hint opens with the name).
    session_doc : str or None
        The session's documentation, where it differs from ``doc``.
    session_help : str or None
        The session's ``--help``, where it differs from ``help``.
    estimator : bool
        Whether :class:`~paucity.clustering.ActiveSpectralClustering` takes it.
    session : bool
        Whether a :class:`~paucity.clustering.ClusteringSession` keeps it.
    estimator_default, estimator_constraints
        The estimator's, where they differ from the session's.
    before
        What a session stored before this setting existed holds. A setting
        added after sessions were first stored declares it (``cut``: the
        seed's ``"sign"``); for the others a stored session that lacks one is
        damaged.
    kind : type
        What a command line reads: ``str``, ``int``, ``float`` or ``bool``
        (an on/off flag).
    parse : callable, optional
        The command line's text as the library's value (``iu-red`` -> ``iu_red``).
    show : callable, optional
        The library's value as a command line types it (``iu_red`` -> ``iu-red``), for messages.
    fixed : bool
        Whether the value is fixed when a session starts. The others may be
        changed later by ``ClusteringSession.change`` (the budget only
        raised, also by ``extend``).
    default_help : str, optional
        How ``--help`` states the default, where the value alone does not say it.
    """

    default: object
    constraints: tuple
    doc: str
    help: str
    hint: str | None = None
    session_doc: str | None = None
    session_help: str | None = None
    estimator: bool = True
    session: bool = True
    estimator_default: object = _SAME
    estimator_constraints: tuple | object = _SAME
    before: object = _REQUIRED
    kind: type = str
    parse: Callable | None = None
    show: Callable | None = None
    fixed: bool = True
    default_help: str | None = None
    name: str = ""

    @property
    def change(self) -> bool:
        """Whether a session's coordinator may change it after the session starts (``ClusteringSession.change``)."""
        return self.session and not self.fixed

    @property
    def option(self) -> str:
        """The command-line option: ``--`` and the name with ``-`` for ``_`` (``--batch-size``)."""
        return "--" + self.name.replace("_", "-")

    def default_for(self, scope: str):
        """The default of the estimator (``scope="estimator"``) or of a session (``"session"``)."""
        if scope == "estimator" and self.estimator_default is not _SAME:
            return self.estimator_default
        return self.default

    def constraints_for(self, scope: str) -> list:
        if scope == "estimator" and self.estimator_constraints is not _SAME:
            return list(self.estimator_constraints)
        return list(self.constraints)

    def stored(self, values: Mapping):
        """The setting in the values a database keeps (KeyError when it lacks one that sessions always held)."""
        if self.name in values or self.before is _REQUIRED:
            return values[self.name]
        return self.before

    def plain(self, value):
        """A value as the database keeps it and the loop reads it: a Python bool, int, float or lower-case str."""
        if value is None:
            return None
        if self.kind is bool:
            return bool(value)
        if self.kind in (int, float) and self.parse is None:
            return self.kind(value)
        if isinstance(value, str):
            return value.lower()
        return value.item() if hasattr(value, "item") else value  # numpy's numbers as Python's

    def help_for(self, scope: str) -> str:
        """The ``--help`` of the setting in a command that runs the estimator or a session."""
        return self.session_help if scope == "session" and self.session_help else self.help

    def typed(self, value):
        """A value as the caller typed it: on a command line, the option's spelling of it (``iu-red``)."""
        from .._spelling import spells

        return self.show(value) if self.show is not None and isinstance(value, str) and spells(self.name) else value

    def read(self, text):
        """A command line's value as the library's (None stays None: not given)."""
        if text is None or self.parse is None:
            return text
        return self.parse(text)

    def same(self, a, b) -> bool:
        """Whether two values of the setting are the same setting (``"Sign"`` is ``"sign"``, 1 is 1.0)."""
        if isinstance(a, str) or isinstance(b, str):
            return str(a).lower() == str(b).lower()
        if self.kind is bool:
            return bool(a) == bool(b)
        return float(a) == float(b)


def _setting(**declared) -> dataclasses.Field:
    return field(default=declared["default"], metadata={"setting": Setting(**declared)})


@dataclass(frozen=True)
class SessionSettings:
    """The settings of a session: written once when it starts, read by every process afterwards.

    Each field is also the declaration of that setting (:class:`Setting`, in
    the field's metadata; :data:`SETTINGS` lists them), from which the
    estimator's parameters, the session's keywords and the command-line
    options are derived. ``ClusteringSession.budget`` is the budget as a
    number of measurements.

    Attributes
    ----------
    {attributes}
    """

    strategy: str = _setting(
        default="iu_red", constraints=(Options(*STRATEGIES),), parse=parse_strategy,
        show=lambda name: name.replace("_", "-"),
        doc='``"iu_red"``: the pair whose measurement most moves the item nearest the cluster boundary, '
            '|dv̂₂(k_min)/dŵᵢⱼ| (Algorithm 1). ``"shamir_tishby"``: the pair that most moves v̂₂ as a whole, '
            '‖dv̂₂/dŵᵢⱼ‖² (Algorithm 2). ``"random"``: uniformly random pairs.',
        help="iu-red (the seed's IU-RED, Algorithm 1), shamir-tishby (S&T, Algorithm 2) or random.",
        hint="IU-RED is the seed's method; S&T and random are its baselines.", default_help="iu-red",
    )
    interleave: bool = _setting(
        default=False, constraints=(BOOLEAN,), kind=bool,
        doc="Alternate the strategy's pairs with uniformly random ones (counting the measurements from 0, the "
            'odd-numbered ones are random), as the seed\'s "interleave" variants do.',
        help="Alternate the strategy's pairs with random ones (the seed's interleave variants).",
    )
    budget: int | float = _setting(
        default=0.1, constraints=(Interval(numbers.Integral, 1, None), Interval(numbers.Real, 0, 1, closed="right")),
        parse=parse_budget, fixed=False,
        doc="An int: the number of measurements. A float in (0, 1]: that fraction of the n(n−1)/2 pairs, times "
            "``repeats`` (rounded, at least 1).",
        session_doc="As given when the session started (an int: measurements; a float: a fraction of the pairs "
                    "times ``repeats``), and raised only by ``ClusteringSession.extend``.",
        help="Measurements to make: an integer (e.g. 300), or a fraction of the n(n-1)/2 pairs (times --repeats) "
             "written with a decimal point (e.g. 0.2; 1.0 is every pair).",
        hint="Give a number of measurements (an int) or a fraction of the pairs (a float such as 0.1).",
    )
    repeats: int = _setting(
        default=1, constraints=(Interval(numbers.Integral, 1, None),), kind=int,
        doc="The most measurements of one pair. With 1 each pair is measured at most once (Algorithms 1 and 2). "
            "With R > 1, the noisy variant of §2.5: Ŵ holds the median of each pair's measurements, and a step "
            "maximizes σ̂ᵢⱼ · score, where σ̂ᵢⱼ = √(1/12) before any measurement and s/√r after r (s the pooled "
            "standard deviation of the repeated pairs), so a pair is measured again when it is uncertain and "
            "matters.",
        help="The most measurements of one pair; above 1, uncertain pairs that matter are measured again (§2.5).",
    )
    batch_size: int = _setting(
        default=20, estimator_default=1, constraints=(Interval(numbers.Integral, 1, None),), kind=int,
        doc="Pairs chosen per eigen-update: the best ``batch_size`` pairs. 1 is the seed's algorithm exactly; a "
            "crowd team sends out batches.",
        session_doc="The most pairs waiting for an answer at once, all annotators together; new pairs are chosen "
                    "by one eigen-update when fewer wait.",
        help="Pairs chosen per eigen-update (the best ones); 1 is the seed's algorithm exactly.",
        session_help="The most pairs waiting for an answer at once, all annotators together; new pairs are chosen by "
                     "one eigen-update when fewer wait. At least the number of people answering at the same time.",
    )
    n_clusters: int = _setting(
        default=2, constraints=(Interval(numbers.Integral, 2, None),), kind=int,
        doc="More than two by recursive bisection: the largest cluster is split next by the v̂₂ of its own "
            "sub-matrix. Each split scores the pairs of its items, and a step takes the best score over all splits.",
        help="Number of clusters; more than 2 by recursive bisection of the largest cluster.",
    )
    random_state: int | None = _setting(
        default=None, constraints=(Interval(numbers.Integral, 0, None), None),
        estimator_constraints=(RANDOM_STATE,), kind=int,
        doc="Seeds the random choices (random strategy, interleaved slots, the start): an int, a "
            "numpy.random.Generator or None. Each batch draws from a generator seeded by (seed, number of the "
            "batch's first measurement), so a resumed session makes the same choices as one never interrupted.",
        session_doc="The seed of the session's random choices: an integer, drawn when the session started without "
                    "one, and kept.",
        help="Seed of the random choices.",
        hint="A session keeps its seed in the database, so it must be an integer.", default_help="a seed drawn when not given",
    )
    price: float = _setting(
        default=0.0, constraints=(Interval(numbers.Real, 0, None),), estimator=False, kind=float,
        doc="The price of one answer: the session's cost is ``price`` times its answers.",
        help="The price of one answer, for the session's cost.",
        hint="It is the price of one answer, for the cost the coordinator sees.",
    )
    lease_seconds: float = _setting(
        default=600.0, constraints=(Interval(numbers.Real, 0, None),), estimator=False, kind=float,
        doc="How long a pair handed out on the annotation page stays with its annotator before it may go to "
            "another.",
        help="How long a pair shown on the annotation page stays with its annotator before it may go to another, "
             "in seconds.",
        hint="It is how long a pair shown on the annotation page stays with its annotator.",
    )
    cut: str = _setting(
        default="sign", constraints=(Options(*CUTS),),
        doc='How labels are read off each split (see :func:`~paucity.clustering.spectral_bisection`): the sign of '
            'v̂₂ (the seed\'s rule), the best RatioCut threshold along v̂₂, or the best normalized-cut threshold '
            'along the normalized Laplacian\'s vector. It changes the labels (and the ``error`` of ``history_``), '
            'not which pairs are measured.',
        session_doc='How the clusters are read off each split of v̂₂: ``"sign"``, ``"ratio"`` or ``"normalized"`` '
                    '(as the estimator). It changes the clusters everyone sees, not the pairs asked. A session '
                    'stored before this setting existed reads as ``"sign"``.',
        help="How the labels are read off each split: sign (of v2, the seed's rule), ratio (the best RatioCut "
             "threshold) or normalized (the normalized Laplacian's vector, best normalized cut); it changes the "
             "clusters, not the pairs asked.",
        hint="sign is the seed's rule; ratio and normalized choose the threshold by RatioCut or NCut.",
        before="sign",
    )
    quota: int | None = _setting(
        default=None, constraints=(Interval(numbers.Integral, 1, None), None), estimator=False, kind=int,
        fixed=False, before=None, default_help="none",
        doc="The most answers one annotator may give, gold answers included; an annotator who reached it gets no "
            "more pairs. None: no limit.",
        help="The most answers one annotator may give, gold answers included (no limit when not given).",
        hint="It is the most answers of one annotator, gold answers included.",
    )
    pause_below: float | None = _setting(
        default=None, constraints=(Interval(numbers.Real, 0, 1, closed="right"), None), estimator=False,
        kind=float, fixed=False, before=None, default_help="never",
        doc="Pause an annotator automatically when the share of their gold answers within one step of the known "
            "answer falls below this, once they gave ``pause_after`` gold answers (counted again from a resume); "
            "the coordinator sees why and may resume them. None: never.",
        help="Pause an annotator automatically when their accuracy on gold pairs falls below this share (e.g. "
             "0.7), once they gave --pause-after gold answers.",
        hint="It is a share of gold answers, such as 0.7.",
    )
    pause_after: int = _setting(
        default=5, constraints=(Interval(numbers.Integral, 1, None),), estimator=False, kind=int, fixed=False,
        before=5,
        doc="The gold answers an annotator gives before ``pause_below`` is applied to them.",
        help="The gold answers an annotator gives before --pause-below is applied to them.",
    )
    gold_feedback: bool = _setting(
        default=False, constraints=(BOOLEAN,), estimator=False, kind=bool, fixed=False, before=False,
        doc="Tell an annotator, after each answer to a gold pair, the answer that was expected.",
        help="Tell an annotator, after each answer to a gold pair, the answer that was expected.",
    )

    def to_dict(self) -> dict:
        """The settings as plain values (what the database keeps, as JSON)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_stored(cls, values: Mapping) -> "SessionSettings":
        """The settings a database keeps; a setting stored before it existed reads as :attr:`Setting.before`
        (KeyError for a missing setting that sessions always held)."""
        return cls(**{s.name: s.stored(values) for s in SETTINGS})


#: Every setting, in the order declared.
SETTINGS: tuple[Setting, ...] = tuple(
    dataclasses.replace(f.metadata["setting"], name=f.name) for f in dataclasses.fields(SessionSettings)
)
_BY_NAME = {s.name: s for s in SETTINGS}


def settings_for(scope: str) -> tuple[Setting, ...]:
    """The settings the estimator takes (``"estimator"``), a session keeps (``"session"``), or a session's
    coordinator may change after it starts (``"change"``)."""
    return tuple(s for s in SETTINGS if getattr(s, scope))


def defaults(scope: str) -> dict:
    """``{name: default}`` of the estimator's or a session's settings."""
    return {s.name: s.default_for(scope) for s in settings_for(scope)}


def constraints(scope: str) -> dict:
    """``{name: constraints}``: the estimator's ``_parameter_constraints`` for its settings, or a session's."""
    return {s.name: s.constraints_for(scope) for s in settings_for(scope)}


def hints(scope: str) -> dict:
    """``{name: hint}`` of the settings that have one."""
    return {s.name: s.hint for s in settings_for(scope) if s.hint}


def setting(name: str) -> Setting:
    """The declaration of one setting."""
    return _BY_NAME[name]


def refuse_unknown(given: Mapping, *, owner: str, scope: str = "session") -> None:
    """Refuse a keyword that names no setting, with the settings there are.

    Examples
    --------
    >>> refuse_unknown({"batch": 5}, owner="ClusteringSession.create")
    Traceback (most recent call last):
    ...
    paucity._errors.ParameterError: ClusteringSession.create: batch is not a setting; the settings are strategy, interleave, budget, repeats, batch_size, n_clusters, random_state, price, lease_seconds, cut, quota, pause_below, pause_after, gold_feedback.
    """
    names = [s.name for s in settings_for(scope)]
    for name in given:
        if name not in names:
            raise ParameterError(f"{owner_prefix(owner)}{name} is not a setting; the settings are {', '.join(names)}.")


def check_settings(given: Mapping, *, owner: str, scope: str = "session") -> dict:
    """The settings given (None left out), each checked against its declaration; unknown names refused."""
    refuse_unknown(given, owner=owner, scope=scope)
    return {name: check_parameter(value, name, _BY_NAME[name].constraints_for(scope), owner=owner,
                                  hint=_BY_NAME[name].hint)
            for name, value in given.items() if value is not None}


def parameters_doc(scope: str, *, base: str = "    ") -> str:
    """The numpydoc entries of the settings (``name : type, default=...`` and the text), to put in a docstring
    whose lines are indented by ``base`` (the first line goes where the placeholder stands)."""
    import textwrap

    lines = []
    for s in settings_for(scope):
        text = s.session_doc if scope == "session" and s.session_doc else s.doc
        lines.append(f"{s.name} : {_type_words(s, scope)}, default={s.default_for(scope)!r}")
        lines += textwrap.wrap(text, width=100, initial_indent="    ", subsequent_indent="    ")
    return lines[0] + "".join(f"\n{base}{line}" for line in lines[1:])


def fill_parameters_doc(doc: str, placeholder: str, scope: str) -> str:
    """``doc`` with the line ``placeholder`` replaced by :func:`parameters_doc`, indented as that line is.

    Python 3.13 strips a docstring's common indentation when it compiles it, earlier versions keep it: the
    entries follow the placeholder's own indentation, so numpydoc reads them as one entry each either way.
    """
    line = next(line for line in doc.splitlines() if line.strip() == placeholder)
    base = line[: len(line) - len(line.lstrip())]
    return doc.replace(placeholder, parameters_doc(scope, base=base))


def _type_words(s: Setting, scope: str) -> str:
    options = next((c for c in s.constraints_for(scope) if isinstance(c, Options)), None)
    if options is not None:
        return "{" + ", ".join(f'"{choice}"' for choice in options.choices) + "}"
    if s.name == "random_state" and scope == "estimator":
        return "int, numpy.random.Generator or None"
    if s.name == "budget":
        return "int or float"
    return {bool: "bool", int: "int", float: "float"}.get(s.kind, "str") + (" or None" if s.default is None else "")


SessionSettings.__doc__ = fill_parameters_doc(SessionSettings.__doc__, "{attributes}", "session")


def estimator_init(**extra):
    """The ``__init__`` of an estimator whose parameters are the estimator's settings, then ``extra``
    (``{name: default}``): it stores each parameter as given, as scikit-learn's contract asks, and its signature
    lists them all, which ``get_params``, ``clone`` and ``repr`` read.

    Examples
    --------
    >>> import inspect
    >>> class Model:
    ...     __init__ = estimator_init(progress=False)
    >>> list(inspect.signature(Model).parameters)[:3], Model(batch_size=5).batch_size
    (['strategy', 'interleave', 'budget'], 5)
    """
    import inspect

    names = {**defaults("estimator"), **extra}
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    parameters += [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default)
                   for name, default in names.items()]
    signature = inspect.Signature(parameters)

    def __init__(self, *args, **kwargs):
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as error:  # an unknown or repeated argument, named as Python names it
            raise TypeError(f"{type(self).__name__}.__init__() {error}") from None
        bound.apply_defaults()
        for name in names:
            setattr(self, name, bound.arguments[name])

    __init__.__signature__ = signature
    return __init__
