"""Kernels of E-Divisive with Medians (EDM): EDM-multi, EDM-percent, EDM-X and EDM-tail.

Method: N. A. James, A. Kejariwal, D. S. Matteson, "Leveraging cloud data to mitigate user
experience from 'breaking bad'", arXiv:1411.7955 (2014); behaviour of the reference code
``twitter/BreakoutDetection`` as described in ``docs/algorithms/edm.md``. Implemented from the
paper and that description, not from the (GPL) reference sources.

This module gathers the kernels of four private modules under one name (``from
pilotstats._kernels import edm``):

* :mod:`pilotstats._kernels.edm_list`: the sorted doubly linked list with a median pointer
  (O(1) amortised medians, "dancing links" deletions);
* :mod:`pilotstats._kernels.edm_dp`: the EDM-multi / EDM-percent dynamic programme;
* :mod:`pilotstats._kernels.edm_prune`: the same programme skipping candidates by exact
  upper bounds (order statistics of any window from
  :mod:`pilotstats._kernels.order_statistics`, dyadic block aggregates), used from
  ``_config.EDM_PRUNE_MIN_POINTS`` values on;
* :mod:`pilotstats._kernels.edm_single`: the single change-point searches EDM-X and EDM-tail
  (interval tree, and the reference's variant).

The batch programme also has a numpy twin with the same results,
:mod:`pilotstats._kernels.edm_numpy` (``edm_dp_tiered`` chooses it while the kernel is not
compiled, up to ``_config.EDM_VECTORISED_MAX_POINTS`` values).

Every kernel is compiled lazily on first call (``numba.njit(cache=True)``) and keeps its
pure-Python twin as ``py_func``.
"""

from __future__ import annotations

from pilotstats._kernels.edm_dp import (
    backtrack,
    dp_column,
    dp_column_pair,
    dp_finish,
    edm_columns,
    edm_columns_parallel,
    edm_dp,
    list_insert,
    penalty_factor,
    virtual_median,
)
from pilotstats._kernels.edm_list import (
    HEAD,
    TAIL,
    find_predecessor,
    insertion_predecessors,
    key_less,
    list_median,
    padded_values,
    relink_track,
    unlink_track,
)
from pilotstats._kernels.edm_prune import edm_dp_pruned
from pilotstats._kernels.edm_single import (
    edm_tail_kappa_descent,
    edm_tail_kappa_sweep,
    edm_tail_search,
    edm_tail_search_reference,
    edm_tail_window_terms,
    edmx_search,
    reference_tree_depth,
    reference_tree_quantile,
    reference_tree_update,
    tree_depth,
    tree_quantile,
    tree_update,
)

__all__ = [
    "HEAD",
    "TAIL",
    "backtrack",
    "dp_column",
    "dp_column_pair",
    "dp_finish",
    "edm_columns",
    "edm_columns_parallel",
    "edm_dp",
    "edm_dp_pruned",
    "edm_tail_kappa_descent",
    "edm_tail_kappa_sweep",
    "edm_tail_search",
    "edm_tail_search_reference",
    "edm_tail_window_terms",
    "edmx_search",
    "find_predecessor",
    "insertion_predecessors",
    "key_less",
    "list_insert",
    "list_median",
    "padded_values",
    "penalty_factor",
    "reference_tree_depth",
    "reference_tree_quantile",
    "reference_tree_update",
    "relink_track",
    "tree_depth",
    "tree_quantile",
    "tree_update",
    "unlink_track",
    "virtual_median",
]
