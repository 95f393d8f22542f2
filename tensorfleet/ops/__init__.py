"""User-facing op constructors, one module per family (each imported where it is used;
the public names in ``tensorfleet/api/`` import them all)."""
