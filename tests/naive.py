"""Brute-force reference implementations in plain Python loops.

Deliberately simple and slow: each function restates a specification formula directly,
so the library's optimised kernels can be checked against it.
"""

from __future__ import annotations
