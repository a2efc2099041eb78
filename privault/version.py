"""The package version, in a module of its own so no layer needs the package root."""

__version__ = "0.1.0"
