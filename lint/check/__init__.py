"""Check: the pipeline of ``tlint check`` (:mod:`lint.check.engine`), the settings that select its rules
(:mod:`lint.check.config`), where its per-file work runs (:mod:`lint.check.executor`), the results it keeps
(:mod:`lint.check.cache`) and the findings it knows already (:mod:`lint.check.baseline`)."""
