from collections import Counter
from collections.abc import Iterator

from lint.formats.megatron_trace.rulekit import format_shape
from lint.formats.megatron_trace.summary import Run
from lint.rule import Rule, Scope, Severity, Violation


class EmbeddingGroup(Rule):
    """The word-embedding all-reduce is missing from the first or last stage, or runs elsewhere.

    With pipeline parallelism the first stage (input embedding) and the last stage (output layer) hold
    tied word-embedding weights and all-reduce their gradients in the embedding group
    (``ep_allreduce``, description ``_allreduce_word_embedding_grads``) once per iteration; no other stage
    is in that group, and both sides reduce the same ``[vocab_shard, hidden]`` tensor.  The writer
    records it on every rank of the embedding group when pp > 1 (``finalize_model_grads`` in
    ``megatron/core/distributed/finalize_model_grads.py``; ``training.py`` in scaling mode).

    With untied input and output embeddings (``--untie-embeddings-and-output-weights``) there is no
    shared weight and moe_mg writes no ``ep_allreduce`` at all: a run in which no rank has one is not
    reported.  Once one rank of the run has it, the embeddings are tied, and every rank of the first and
    the last stage must have it.

    Why it matters:
        An embedding all-reduce on a middle stage, or on only one side, is a collective no peer joins: a
        hang in the real job, a wrong finalize phase in the simulated one.

    Example:
        a pp 2 run with tied embeddings whose stage 0 runs ``ep_allreduce`` and stage 1 does not
        -> stage 1 has no ep_allreduce in iteration 0: the first and the last stage all-reduce their tied
        embedding gradients
    """

    code = "TL508"
    name = "embedding-group"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        pp = run.layout.pp
        if pp < 2:
            return
        ends = {0, pp - 1}
        embeddings = run.each_alike(lambda steps: [step for step in steps if step.op == "ep_allreduce"])  # each a scan of all steps
        if not any(embeddings.values()):
            return  # untied embeddings: no embedding group to reduce in
        shapes = Counter(step.collectives[0][2:] for steps in embeddings.values() for step in steps if step.collectives)
        usual = shapes.most_common(1)[0][0] if shapes else None
        for rank, summary in sorted(run.ranks.items()):
            stage = run.stage_of(rank)
            embedding = embeddings[rank]
            if stage not in ends:
                for step in embedding:
                    yield Violation(
                        step.line,
                        1,
                        f"ep_allreduce on stage {stage}: only the first and the last stage (0 and {pp - 1}) are in the embedding group",
                        rank,
                        path=summary.path,
                    )
                continue
            done = {step.iteration for step in embedding}
            for iteration in range(summary.iterations):
                if iteration not in done:
                    yield Violation(
                        None,
                        None,
                        f"stage {stage} has no ep_allreduce in iteration {iteration}: the first and the last stage all-reduce their tied embedding gradients",
                        rank,
                        path=summary.path,
                    )
            for step in embedding:
                if step.collectives and usual is not None and step.collectives[0][2:] != usual:
                    shape, dtype = step.collectives[0][2:]
                    yield Violation(
                        step.line,
                        1,
                        f"ep_allreduce of {format_shape(shape)} {dtype}; the embedding group reduces {format_shape(usual[0])} {usual[1]} elsewhere",
                        rank,
                        path=summary.path,
                    )
