"""Profile: what a format's diff adapter builds of one side of ``tlint diff`` (:mod:`lint.profile.profile`,
:mod:`lint.profile.layers`), the statistics its timings are summarised with (:mod:`lint.profile.stats`)
and what the adapter is handed to read its files (:mod:`lint.profile.side`)."""
