"""ADWISER controller: configuration models, versioned store, API, telemetry (issue 6)."""

__version__ = "0.1.0"
