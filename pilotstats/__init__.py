"""pilotstats: statistically honest performance measurements."""
__version__ = "0.1.0"
