from collections import Counter
from collections.abc import Iterator

from lint.formats.megatron_trace.summary import Run
from lint.rule import Rule, Scope, Severity, Violation


class LayerCoverage(Rule):
    """The stages' TP layer collectives do not cover the model's layers, or the loss is on the wrong stage.

    Each transformer layer all-reduces twice over TP in the forward step, so a stage's forward holds
    2 × its layers of them; together the stages cover every layer of the model (when the model's layer
    count is stated, e.g. ``layers`` in ``[tool.tlint.runs."<glob>"]``), and only the last stage reduces
    the cross-entropy loss.

    With tp = 1 there is no TP traffic to count: no layer collectives, and - in moe_mg - no
    cross-entropy reduction either (Megatron-LM's decorated ``_reduce`` records one even then,
    ``megatron/core/tensor_parallel/mappings.py``); the rule then checks nothing.  tp comes from the
    layout (file names, configuration) or, when none states it, from whether any forward step holds a
    TP layer collective.  Each stage builds ``num_layers // pp`` layers (``get_num_layers_to_build`` in
    ``megatron/core/transformer/transformer_block.py``; scaling mode skips the divisibility check, so
    96 layers over 64 stages build one each): the stages cover ``layers // pp × pp`` of them, and only a
    run with a file for every stage is checked for coverage.

    Why it matters:
        A stage with an odd number of layer collectives lost one (a layer runs without its TP reduction);
        a run that covers fewer layers than the model is not the model that was configured; a loss on
        another stage means the stages are mislabelled.

    Example:
        ``layers = 4`` in ``[tool.tlint.runs."*"]`` for a pp 2 run whose stages each hold 2 forward TP
        all-reduces
        -> the stages cover 2 layers (1 + 1, counted from their forward TP all-reduces); the model has 4 (layers
        from [tool.tlint.runs."*"])
    """

    code = "TL509"
    name = "layer-coverage"
    severity = Severity.ERROR
    formats = ("megatron-trace",)
    scope = Scope.RUN

    def check_run(self, run: Run) -> Iterator[Violation]:
        tp = run.layout.tp
        forwards_of = run.each_alike(lambda steps: [step for step in steps if step.op == "forward_step"])  # each a scan of all steps
        has_tp_layers = any(step.layer_collectives for forwards in forwards_of.values() for step in forwards)
        if tp == 1 or (tp is None and not has_tp_layers):
            return
        odd_of = run.each_alike(lambda steps: [step for step in steps if step.op == "forward_step" and step.layer_collectives % 2])
        last = run.layout.pp - 1
        layers_of_stage: dict[int, int] = {}
        for stage, ranks in run.stages().items():
            groups = [(forwards_of[members[0]], members) for _, members in run.alike(ranks)]  # ranks alike, counted once
            if not any(forwards for forwards, _ in groups):
                continue
            counts: Counter[int] = Counter()
            for forwards, members in groups:
                for step in forwards:
                    counts[step.layer_collectives] += len(members)
            layers_of_stage[stage] = counts.most_common(1)[0][0] // 2
            for rank in ranks:
                for step in odd_of[rank]:
                    yield Violation(
                        step.line,
                        1,
                        f"forward_step holds {step.layer_collectives} TP layer all-reduces: a transformer layer all-reduces twice",
                        rank,
                        path=run.ranks[rank].path,
                    )
            reducing = [(members[0], step) for forwards, members in groups for step in forwards if step.loss_reductions]
            if stage == last and not reducing:
                yield Violation(None, None, f"the last stage ({stage}) reduces no cross-entropy loss in its forward steps")
            elif stage != last and reducing:
                rank, step = reducing[0]
                yield Violation(
                    step.line, 1, f"stage {stage} reduces the cross-entropy loss; only the last stage ({last}) does", rank, path=run.ranks[rank].path
                )
        model = run.layout.layers
        covered = sum(layers_of_stage.values())
        if model is not None and len(layers_of_stage) == run.layout.pp and covered != model // run.layout.pp * run.layout.pp:
            source = next((c.source for c in run.layout.claims if c.dimension == "layers"), "the configuration")
            parts = " + ".join(str(n) for n in layers_of_stage.values())
            yield Violation(
                None,
                None,
                f"the stages cover {covered} layers ({parts}, counted from their forward TP all-reduces); the model has {model} (layers from {source})",
            )
