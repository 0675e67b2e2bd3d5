"""Runs: the per-rank files of one job, read together, whatever their format (its descriptor's ``runs``).

Per file, the format's summarizer streams the records into a compact rank summary (a
:class:`~lint.runs.model.RankSummary`); :mod:`lint.runs.discovery` groups files into runs by their names,
:mod:`lint.runs.assemble` builds a run's layout from its summaries and every source that states one, and
run rules only ever see those summaries, so a run of thousands of ranks never holds their records in memory.
"""
