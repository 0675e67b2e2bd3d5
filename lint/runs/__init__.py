"""Runs: the per-rank megatron-trace files of one job, read together.

Per file, a summarizer streams the records into a compact :class:`~lint.runs.summary.RankSummary`
(collective sequences, p2p records, schedule, counts); run rules only ever see those summaries, so a
run of thousands of ranks never holds their records in memory.
"""
