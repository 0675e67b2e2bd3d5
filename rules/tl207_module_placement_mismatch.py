from collections.abc import Iterator

from lint.formats.optprime_log.records import MetadataRangeRecord, ModulePlacementRecord
from lint.formats.optprime_log.rulekit import OptprimeLayout
from lint.rule import RuleOptions, Severity, Violation, at

# The metadata ranges that map a stage to its sub-module (the ``first`` one names split points).
MODULE_LISTINGS = ("second", "placement")


class ModulePlacementMismatch(OptprimeLayout):
    """A rank moves another sub-module than the one of its stage.

    `` ### Rank:R, name:submod_S, move submod_S to cuda:L`` places the sub-module of R's stage on R's
    device: the two module names are the same, R's stage is the one ``stage2rank`` puts it on, and that
    stage's module is the one the ``second`` (or `` # rank = R``) ``metadata_range`` lists for it.

    Why it matters:
        The placement says which layers a rank really ran: a rank holding another stage's module
        computes the wrong part of the model, or the log's stage map and placement lines come from
        different runs.

    Example:
        ``stage2rank = {0: [0], 1: [1], …}``, ``second metadata_range: [(0, 'submod_0'), (1, 'submod_1'), …]``,
        then `` ### Rank:3, name:submod_4, move submod_4 to cuda:3``
        -> rank 3 places submod_4, but stage2rank (line 31) puts it on stage 3, whose module is submod_3
        (second metadata_range, line 53)
    """

    code = "TL207"
    name = "module-placement-mismatch"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def __init__(self, options: RuleOptions | None = None) -> None:
        super().__init__(options)
        self.placements: list[ModulePlacementRecord] = []
        self.modules: MetadataRangeRecord | None = None

    def check_metadata_range(self, record: MetadataRangeRecord) -> Iterator[Violation]:
        if self.modules is None and record.listing in MODULE_LISTINGS:
            self.modules = record
        return iter(())

    def check_module_placement(self, record: ModulePlacementRecord) -> Iterator[Violation]:
        if record.module != record.moved_module:
            yield at(record, f"rank {record.rank} names {record.module} but moves {record.moved_module}", field="moved_module")
        self.placements.append(record)

    def finish(self) -> Iterator[Violation]:
        if self.stage_map is None:
            return
        where = f"stage2rank (line {self.stage_map.line})"
        for placement in self.placements:
            stages = [stage for stage, ranks in self.stage_map.stages.items() if placement.rank in ranks]
            if not stages:
                yield at(placement, f"rank {placement.rank} places {placement.module}, but {where} puts it on no stage", field="module")
            elif self.modules is not None:
                yield from self._against_modules(placement, stages, self.modules, where)

    @staticmethod
    def _against_modules(placement: ModulePlacementRecord, stages: list[int], listed: MetadataRangeRecord, where: str) -> Iterator[Violation]:
        modules = dict(listed.ranges)
        listing = f"{listed.listing} metadata_range, line {listed.line}"
        for stage in stages:
            if stage not in modules:
                yield at(
                    placement,
                    f"rank {placement.rank} places {placement.module}; {where} puts it on stage {stage}, for which the {listing} names no module",
                    field="module",
                )
            elif modules[stage] != placement.module:
                yield at(
                    placement,
                    f"rank {placement.rank} places {placement.module}, but {where} puts it on stage {stage}, whose module is {modules[stage]} ({listing})",
                    field="module",
                )
