"""The package version, importable without importing the package's subpackages."""

__version__ = "0.1.0"
