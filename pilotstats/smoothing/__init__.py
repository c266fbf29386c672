"""Smoothing: time-window moving averages, crossovers, divergence regions, contributors."""

__all__: list[str] = []
