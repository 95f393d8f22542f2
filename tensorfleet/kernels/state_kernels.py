"""Placeholder module; filled in by its family."""

__all__: list = []
