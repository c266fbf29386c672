"""Result classes of :func:`~pilotstats.changepoints.steady_state`: the steady state of a
benchmark across its forks (:class:`SteadyState`) and of each fork (:class:`ForkSteadyState`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, SupportsIndex, overload

from pilotstats._protocols import select_items
from pilotstats.results import (
    ConfidenceInterval,
    Result,
    draw,
    format_interval,
    format_quantity,
    plot_doc,
)

if TYPE_CHECKING:  # the autocorrelation pillar (scipy.stats) is imported on first use
    from pilotstats.autocorrelation._two_level import TwoLevelResult

__all__ = ["ForkSteadyState", "SteadyState"]


@dataclasses.dataclass(frozen=True, slots=True)
class ForkSteadyState(Result):
    """Steady state of one fork, judged with the other forks of its benchmark.

    Attributes
    ----------
    fork : int
        Position of the fork in the input (0-based).
    n : int
        Number of iterations of the fork.
    steady : bool
        True when the fork reaches the benchmark's steady state.
    onset : int or None
        First steady iteration (``x[onset:]`` is the steady state); None when not steady.
    classification : str
        ``"flat"``, ``"warmup"``, ``"slowdown"`` or ``"no_steady_state"`` (Barrett et al.).
    own_classification : str
        The class the equivalence model gives the fork on its own evidence (with the noise
        pooled over the forks); differs from ``classification`` only when the benchmark's
        steady state is not reproducible (see :func:`steady_state`, Notes).
    mean_start : int or None
        First iteration of the mean, ``max(onset, start of the benchmark's bias-free
        part)`` (see :func:`steady_state`, Notes, step 3); None when not steady.
    mean : float
        Mean of ``x[mean_start:]``; NaN when not steady.
    final_level : float
        Final level of the fork (median of its last quarter).
    band : float
        Half-width of the band of practical equivalence around ``final_level``.
    note : str
        Which rule decided.
    unit : str or None
        Label of the measured quantity.

    Examples
    --------
    The items of a :class:`SteadyState`:

    >>> import numpy as np
    >>> from pilotstats.changepoints import steady_state
    >>> rng = np.random.default_rng(1)
    >>> t = np.arange(2000)
    >>> forks = [1.0 + 0.3 * np.exp(-t / 80.0) + rng.normal(0.0, 0.01, 2000) for _ in range(4)]
    >>> fork = steady_state(forks)[0]
    >>> fork.steady, fork.classification, fork.onset
    (True, 'warmup', 198)
    """

    fork: int
    n: int
    steady: bool
    onset: int | None
    classification: str
    own_classification: str
    mean_start: int | None
    mean: float
    final_level: float
    band: float
    note: str
    unit: str | None = None

    def __str__(self) -> str:
        if not self.steady:
            return f"fork {self.fork}: no steady state in {self.n} iterations ({self.note})"
        return (
            f"fork {self.fork}: {self.classification}, steady from iteration {self.onset} of "
            f"{self.n}, mean {format_quantity(self.mean, self.unit)}"
        )


@dataclasses.dataclass(frozen=True, slots=True)
class SteadyState(Result):
    """Steady state of a benchmark across its forks, from :func:`steady_state`.

    Follows the :class:`pilotstats.ResultCollection` protocol; an item is one
    :class:`ForkSteadyState`: iterating yields the forks in input order, ``result[i]`` is
    fork i, ``len(result)`` the number of forks and :meth:`to_frame` has one row per fork.

    Attributes
    ----------
    forks : tuple of ForkSteadyState
        One entry per fork.
    verdict : str
        ``"consistent"`` (every fork is steady and all share one class),
        ``"inconsistent"`` (the steady forks differ in class, or a tolerated minority of
        forks never settles) or ``"no_steady_state"`` (the steady state is not reproducible:
        too many forks never settle).
    mean : float
        Steady mean of the benchmark: the average of the steady forks' means (each over
        ``x[mean_start:]``); NaN with the verdict ``"no_steady_state"``.
    ci_low, ci_high : float
        Between-fork confidence interval of ``mean`` (Student t over the steady forks'
        means, ``n_steady - 1`` degrees of freedom, from ``two_level``); NaN with fewer
        than two steady forks.
    confidence_level : float
        Level of the interval.
    n_steady : int
        Number of steady forks.
    tolerance, min_steady_fraction, min_warmup_fraction, max_unsteady_fraction : float
        Parameters of the model (see :func:`steady_state`).
    higher_is_better : bool
        Direction of the values used for the classes.
    two_level : TwoLevelResult or None
        The between-fork analysis of the steady forks' ``x[mean_start:]``
        (:func:`~pilotstats.autocorrelation.two_level_analysis`: forks as the units, and
        the between-fork and within-fork variance components that plan how many forks
        and iterations a target precision needs); None without a steady fork.
    note : str
        How the verdict was reached.
    unit : str or None
        Label of the measured quantity.

    Examples
    --------
    >>> import numpy as np
    >>> from pilotstats.changepoints import steady_state
    >>> rng = np.random.default_rng(2)
    >>> forks = rng.normal(5.0, 0.1, (3, 1500)) + rng.normal(0.0, 0.05, (3, 1))
    >>> result = steady_state(forks)
    >>> result.verdict, len(result), [fork.classification for fork in result]
    ('consistent', 3, ['flat', 'flat', 'flat'])
    >>> ci = result.confidence_interval()
    >>> bool(ci.low < result.mean < ci.high)
    True
    """

    forks: tuple[ForkSteadyState, ...]
    verdict: str
    mean: float
    ci_low: float
    ci_high: float
    confidence_level: float
    n_steady: int
    tolerance: float
    min_steady_fraction: float
    min_warmup_fraction: float
    max_unsteady_fraction: float
    higher_is_better: bool
    two_level: TwoLevelResult | None
    note: str
    unit: str | None = None

    def __iter__(self) -> Iterator[ForkSteadyState]:
        return iter(self.forks)

    def __len__(self) -> int:
        return len(self.forks)

    @overload
    def __getitem__(self, index: SupportsIndex) -> ForkSteadyState: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[ForkSteadyState, ...]: ...

    def __getitem__(self, index: Any) -> Any:
        return select_items(index, len(self.forks), self.forks.__getitem__, "SteadyState")

    @property
    def onsets(self) -> tuple[int | None, ...]:
        """First steady iteration of each fork (None when not steady)."""
        return tuple(fork.onset for fork in self.forks)

    @property
    def classifications(self) -> tuple[str, ...]:
        """Class of each fork."""
        return tuple(fork.classification for fork in self.forks)

    def confidence_interval(self) -> ConfidenceInterval:
        """The between-fork interval ``(ci_low, ci_high)`` of the steady mean."""
        return ConfidenceInterval(self.ci_low, self.ci_high)

    def to_frame(self) -> Any:
        """One row per fork: the fields of :class:`ForkSteadyState` (needs pandas).

        Returns
        -------
        pandas.DataFrame
            Columns ``fork``, ``n``, ``steady``, ``onset``, ``classification``,
            ``own_classification``, ``mean_start``, ``mean``, ``final_level``, ``band``,
            ``note`` and ``unit``.

        Examples
        --------
        >>> import numpy as np
        >>> from pilotstats.changepoints import steady_state
        >>> forks = np.random.default_rng(4).normal(1.0, 0.01, (2, 1200))
        >>> steady_state(forks).to_frame()[["fork", "steady", "onset", "classification"]]
           fork  steady  onset classification
        0     0    True     60           flat
        1     1    True     60           flat
        """
        import pandas as pd

        columns = [field.name for field in dataclasses.fields(ForkSteadyState)]
        return pd.DataFrame(
            [[getattr(fork, name) for name in columns] for fork in self.forks],
            columns=columns,
        )

    @plot_doc
    def plot(
        self,
        forks: Any,
        *,
        ax: Any = None,
        unit: str | None = None,
        ylabel: str | None = None,
        title: str | None = None,
    ) -> Any:
        """Draw every fork (dotted when not steady) with its onset, and the steady mean.

        Needs matplotlib. The steady mean is a horizontal line inside the band of its
        between-fork confidence interval.

        Parameters
        ----------
        forks : array_like or sequence of array_like
            The forks the result was computed from (results do not keep them).
        {ax}
        unit : str, optional
            Unit of the values (default: :attr:`unit`); seconds are auto-scaled.
        {ylabel}
        title : str, optional
            Title (default: the one-line summary).

        {returns}

        Raises
        ------
        InvalidInputError
            ``forks`` not the forks of this result (count or lengths).
        {no_matplotlib}

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from pilotstats.changepoints import steady_state
        >>> forks = np.random.default_rng(5).normal(1.0, 0.01, (3, 1200))
        >>> ax = steady_state(forks, unit="ms").plot(forks)
        >>> ax.get_ylabel(), ax.get_title()[:27]
        ('value (ms)', 'consistent: 3 of 3 forks st')
        """
        return draw(self, forks, ax=ax, unit=unit, ylabel=ylabel, title=title)

    def __str__(self) -> str:
        count = len(self.forks)
        head = f"{self.verdict.replace('_', ' ')}: {self.n_steady} of {count} forks steady"
        if math.isnan(self.mean):
            return f"{head}; {self.note}"
        interval = format_interval(self.ci_low, self.ci_high, self.confidence_level, self.unit,
                                   estimate=self.mean)
        return (
            f"{head}; steady mean {format_quantity(self.mean, self.unit)} "
            f"({interval} between forks)"
        )
