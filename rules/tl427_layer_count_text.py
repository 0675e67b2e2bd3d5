from collections.abc import Iterator

from lint.formats.simai_workload.records import LayerCount
from lint.rule import Rule, Severity, Violation, at, by_consumer

# What C's isspace calls white space (the "C" locale), each made a blank: >> stops a word at any of them.
_C_SPACE_TO_BLANK = str.maketrans("\t\n\v\f\r", "     ")


class LayerCountText(Rule):
    """Line 2 holds more than the layer count: ``57.0``, ``57 layers``.

    SimAI converts line 2 with ``std::stoi`` (``Workload::initialize_workload``, ``Workload.cc:1278``,
    aliyun/SimAI cef83f9d), which reads the leading digits and ignores the rest of the line: it reads the count
    as meant.  ASTRA-sim 1.0 reads the count with ``>>`` (``Workload.cc:1315``, branch ``ASTRA-sim-1.0``), which
    stops at the first character that is no digit; what follows is read as the first words of the rows
    (``Workload.cc:1321``): every field of every row shifts.  No writer puts anything after the count: AICB
    writes ``len(self.workload)`` (``SIMAI_workload.dump_file``).

    Measured: SimAI simulates the file as written (oracle classes ``count_float``, ``count_with_text``: fine,
    22 of 22 runs that got past the header); ASTRA-sim 1.0 ends without finishing its iteration on its
    Resnet50_DataParallel example with ``54.0`` or ``54 layers`` on line 2.

    This is a warning for SimAI, which reads the count as meant (the writers' format is broken, and other
    readers of the file misread it), and an error for ASTRA-sim 1.0, which shifts every row.

    Why it matters:
        The count is the one number every reader of the format parses; a decoration there is harmless to
        one simulator and breaks the other.

    Example:
        line 2 is ``1.0``
        -> line 2 is '1.0': SimAI reads the layer count 1 with std::stoi, which ignores '.0' (Workload.cc:1278);
        ASTRA-sim 1.0 would read '.0' as the first row's name
    """

    code = "TL427"
    name = "layer-count-text"
    formats = ("simai-workload",)
    consumers = by_consumer({"simai": Severity.WARNING, "astra-sim-1": Severity.ERROR})

    def check_layer_count(self, count: LayerCount) -> Iterator[Violation]:
        words = [word for word in count.rest.translate(_C_SPACE_TO_BLANK).split(" ") if word]  # as >> reads them: C's isspace, not Python's
        if not words:  # only white space past the spaces and tabs the parser strips (a CR, a form feed): >> skips it
            return
        shown = f"line {count.line} is '{count.count}{'' if count.rest[0] in '.,' or not count.rest[0].isalnum() else ' '}{count.rest}'"
        first = words[0]
        if self.consumer == "astra-sim-1":
            yield at(
                count,
                f"{shown}: ASTRA-sim 1.0 reads the count {count.count} with >> and '{first}' as the first row's name (Workload.cc:1315, 1321): "
                f"every field of every row shifts by {len(words)} word{'s' if len(words) > 1 else ''}",
                count.rest_column,
            )
        else:
            yield at(
                count,
                f"{shown}: SimAI reads the layer count {count.count} with std::stoi, which ignores '{count.rest}' (Workload.cc:1278); "
                f"ASTRA-sim 1.0 would read '{first}' as the first row's name",
                count.rest_column,
            )
