"""One module per format: ``load(path, sources, options) -> Profile`` (see :mod:`lint.diff.sides`)."""
