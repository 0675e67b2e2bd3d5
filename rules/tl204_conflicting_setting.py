from collections.abc import Iterator

from lint.formats.optprime_log.records import ConfigRecord
from lint.formats.optprime_log.rulekit import OptprimeLayout
from lint.rule import Severity, Violation, at


class ConflictingSetting(OptprimeLayout):
    """A setting is printed again with another value.

    A log prints some settings more than once: the example script and the framework each print the
    world and pipeline sizes (``> World size: 8``, then ``> World Size: 8``), and set-up lines repeat per
    rank.  One run has one value of each; every printing must agree with the first.

    Why it matters:
        Two values of one setting mean two runs' output in one file (a re-run appended to the log) or an
        edit: rules and tools read the first value, and half of the log contradicts it.

    Example:
        ``> World size: 8`` on line 9, ``> World Size: 4`` on line 26
        -> `> World Size: 4` but world_size is `> World size: 8` (line 9)
    """

    code = "TL204"
    name = "conflicting-setting"
    severity = Severity.ERROR
    formats = ("optprime-log",)

    def check_config(self, record: ConfigRecord) -> Iterator[Violation]:
        first = self.settings.get(record.setting)
        if first is not None and first.value != record.value:
            yield at(record, f"`{record.label}{record.value}` but {record.setting} is {first}", field="value")
        yield from super().check_config(record)
