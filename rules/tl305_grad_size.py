import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from lint.formats.neusight_tsv.records import LayerRecord
from lint.rule import Rule, RuleOptions, Severity, Violation, at

# Layer names are torch.fx node names: a leaf module's path with "_" for "." (nn.LayerNorm, nn.Linear,
# nn.Embedding), or a traced call's function name with a "_N" counter (GPT-2's Conv1D becomes addmm).
_LAYER_NORM = re.compile(r"(?:^|_)ln(?:_|$)|layer_?norm", re.IGNORECASE)
_LINEAR = re.compile(r"^(?:addmm|linear)(?:_[0-9]+)?$|(?:^|_)(?:lm_head|[a-z]*proj|fc[0-9]+|query|key|value|dense)$", re.IGNORECASE)
_EMBEDDING = re.compile(r"(?:^|_)(?:wte|wpe)$|embed", re.IGNORECASE)


def _layer_norm(size: int, hidden: int) -> str | None:
    return None if size == 2 * hidden else f"a LayerNorm gradient is 2·H = {2 * hidden}"


def _linear(size: int, hidden: int) -> str | None:
    if size % (hidden + 1) == 0 or size % hidden == 0:
        return None
    return f"a Linear gradient is I·O + O with I or O = H, a multiple of H + 1 = {hidden + 1} or of H = {hidden}"


def _embedding(size: int, hidden: int) -> str | None:
    return None if size % hidden == 0 else f"this writer's embedding gradient is seq·H, a multiple of H = {hidden}"


Check = Callable[[int, int], str | None]  # (gradient size, H) -> what the size should be, or None when it fits

# The first pattern that matches a layer's name decides: bert_embeddings_LayerNorm is a LayerNorm.
_CHECKS: tuple[tuple[re.Pattern[str], Check], ...] = ((_LAYER_NORM, _layer_norm), (_LINEAR, _linear), (_EMBEDDING, _embedding))


class GradSize(Rule):
    """A gradient row's size is not its layer's parameter count for the table's hidden size H.

    The writer is asu-gkg/simai ``mtccl/workload_generator.py`` (``LayerInfo.set_comm``,
    ``to_work_item``, ``WorkloadGenerator.dump_file``) over NeuSight's ``neusight/Tracing/parse.py``
    ``parse_trace``, which sizes LayerNorm ``H·2``, Linear ``I·O + O`` and embedding ``W·H`` gradients.

    A gradient row ``X_grad`` all-reduces the parameters of layer ``X``, and its ``backward_comm_size``
    is their number.  The layer is told by its name:

    - LayerNorm (a ``ln`` name part, ``layernorm`` or ``layer_norm``): weight and bias, ``2·H``;
    - Linear (``addmm``, ``linear``, ``lm_head`` and names ending in ``proj``, ``fc1``, ``query``,
      ``key``, ``value`` or ``dense``): ``I·O + O``; every Linear of a transformer has I = H or O = H, so
      the size is a multiple of H + 1 or of H;
    - embedding (``wte``, ``wpe`` or a name with ``embed``): this writer uses the layer's output shape,
      ``seq·H`` (seed 003: ``transformer_wte_grad`` = 1024·1280), not ``vocab·H``; a multiple of H.

    H is half the size that most LayerNorm gradients share (the first one seen on a tie); a table without
    an even-sized LayerNorm gradient is not checked.  Gradient rows of other layers and of size 0 (TL301,
    TL304) are not checked either.

    The writer counts a bias for every Linear, so ``lm_head_grad`` is ``H·V + V`` (seed 003:
    64,379,217 = 1280·50,257 + 50,257) although GPT-2's ``lm_head`` has no bias and shares its weight
    with ``transformer_wte``; that size fits (it is a multiple of H + 1), and simulators get it as written.

    This is a warning: layers are recognised by name, and H by a majority.  Models whose layers have
    several widths, or whose norms have no bias (RMSNorm: an ``H``-sized gradient, so H is taken for half
    the real one), legitimately break it; disable the rule for such tables.

    Why it matters:
        The gradient size is the data-parallel traffic a simulator sends for the layer, often the largest
        communication of a step; a size from another layer or another model config (a wrong H) skews
        every data-parallel estimate built from the table.

    Example:
        ``transformer_h_0_ln_1_grad`` has size 2561 while ``transformer_h_0_ln_2_grad`` and
        ``transformer_ln_f_grad`` have 2560
        -> transformer_h_0_ln_1_grad has 2561 elements; a LayerNorm gradient is 2·H = 2560 (H = 1280 from
        transformer_h_0_ln_2_grad)
    """

    code = "TL305"
    name = "grad-size"
    severity = Severity.WARNING
    formats = ("neusight-tsv",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        # Gradient rows of recognised layers by name and size, in the order of their first rows: the first such
        # row, its check and how many rows repeat it (a table repeats its rows: kept once, not per row).
        self.grads: dict[tuple[str, int], _Grad] = {}

    def check_layer(self, row: LayerRecord) -> Iterable[Violation]:
        check = _check_of(row)
        if check is not None:
            found = self.grads.get((row.name, row.backward_comm_size))
            if found is None:
                self.grads[row.name, row.backward_comm_size] = _Grad(row, check)
            else:
                found.rows += 1
        return ()

    def finish(self) -> Iterator[Violation]:
        layer_norms = [grad for grad in self.grads.values() if grad.check is _layer_norm]
        votes = Counter[int]()
        for grad in layer_norms:
            if grad.first.backward_comm_size % 2 == 0:
                votes[grad.first.backward_comm_size] += grad.rows
        if not votes:
            return
        size = votes.most_common(1)[0][0]
        hidden = size // 2
        source = next(grad.first for grad in layer_norms if grad.first.backward_comm_size == size)
        for grad in self.grads.values():
            row = grad.first
            expected = grad.check(row.backward_comm_size, hidden)
            if expected:
                more = f" (and {grad.rows - 1} more row{'s' if grad.rows > 2 else ''} alike)" if grad.rows > 1 else ""
                yield at(
                    row, f"{row.name} has {row.backward_comm_size} elements; {expected} (H = {hidden} from {source.name}){more}", field="backward_comm_size"
                )


@dataclass(slots=True)
class _Grad:
    """The first gradient row of a name and size, its check, and how many rows repeat it."""

    first: LayerRecord
    check: Check
    rows: int = 1


def _check_of(row: LayerRecord) -> Check | None:
    """The check of a gradient row of a recognised layer that moves something, else None."""
    if row.grad_of is None or not row.backward_comm_size:
        return None
    return next((check for pattern, check in _CHECKS if pattern.search(row.grad_of)), None)
