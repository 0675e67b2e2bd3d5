"""Store: where tlint's own files are (:mod:`lint.store.resources`) and what it keeps on disk between runs
(:mod:`lint.store.disk`), and how every file is opened to be read (:mod:`lint.store.files`)."""
