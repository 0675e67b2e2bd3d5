"""Which files a command line names: paths, globs and directories walked the way ruff walks them.

A file or directory named explicitly is always read (what excludes a named directory does not apply
to what is in it).  In a walked directory, hidden entries are skipped, and so are tlint's own cache
directory (``$TLINT_CACHE_DIR`` may well lie in the checked tree: its entries are text that no format
writes, each a finding's worth of noise if read as a trace) and
whatever the exclude patterns (``--exclude`` replaces the defaults, ``--extend-exclude`` adds to them)
or a ``.gitignore`` matches.  Patterns are gitignore-style (``pathspec``): a pattern with no slash
matches at any depth, ``dir/`` matches a directory, ``/x`` is anchored at the root the patterns are
relative to (the configuration file's directory, or the current one).  ``.gitignore`` files are read
from the walked directory down, and from its parents up to the repository's top (the directory that
holds ``.git``), each applying to the directory it lies in, a deeper one overriding a shallower one.
"""

from __future__ import annotations

import errno
import glob
import os
import re
import stat
from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from lint.models.common import Record
from lint.read.source import STDIN, InputError, Source, printable_path, spool_stdin
from lint.store.disk import cache_dir
from lint.store.files import open_regular

if TYPE_CHECKING:
    # Imported when a directory is walked: its import (and asyncio's, which it pulls in) costs more than
    # a check of a named file served from the cache spends on anything else.
    from pathspec import GitIgnoreSpec
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

# What a file's name says it is: documentation or source code, which no writer of these formats produces, and which
# may well quote a few records (docs/formats/optprime-log.md does).  Such a file is never read as a trace unless
# --trace-format says so: a walk passes it over, and one named on the command line - a shell glob over a run's
# folder (`tlint check corpus/*`) names its README or PROVENANCE.md too - is skipped, not a TL005.
NOT_A_TRACE = frozenset(
    {
        *(".md", ".markdown", ".rst", ".adoc", ".tex", ".html", ".htm", ".ipynb"),  # documentation
        *(".py", ".pyi", ".sh", ".bash", ".lark", ".toml", ".yaml", ".yml", ".cfg", ".ini"),  # code, configuration
        *(".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".cu", ".cuh", ".js", ".ts", ".java", ".go", ".rs"),
        *(".patch", ".diff"),
    }
)
# Directories that hold installed or generated code, never traces; `--exclude` replaces this list.
DEFAULT_EXCLUDE = ("__pycache__/", "node_modules/", "site-packages/")
GITIGNORE = ".gitignore"
_GLOB_CHARACTERS = set("*?[")


class WalkOptions(Record):
    """What a walk of directories leaves out."""

    __slots__ = ("exclude", "extend_exclude", "respect_gitignore", "root")

    def __init__(
        self, exclude: tuple[str, ...] = DEFAULT_EXCLUDE, extend_exclude: tuple[str, ...] = (), respect_gitignore: bool = True, root: Path | None = None
    ) -> None:
        self.exclude = exclude
        self.extend_exclude = extend_exclude
        self.respect_gitignore = respect_gitignore
        self.root = root if root is not None else Path.cwd()  # exclude patterns are relative to this directory

    def exclude_spec(self) -> GitIgnoreSpec:
        from pathspec import GitIgnoreSpec
        from pathspec.patterns.gitignore import GitIgnorePatternError

        from lint.models.errors import ConfigError

        patterns = [*self.exclude, *self.extend_exclude]
        try:
            return GitIgnoreSpec.from_lines(patterns)
        except GitIgnorePatternError as error:  # a lone `!` or a trailing `\`: the user wrote a pattern git would not take
            raise ConfigError(f"exclude patterns: {error}") from None
        except re.error as error:  # a range backwards (`[z-a]`): pathspec compiles each pattern to a regular expression
            wrong = next((pattern for pattern in patterns if not pattern.startswith("#") and _gitignore_line(pattern).include is None), "?")
            raise ConfigError(f"exclude patterns: {wrong!r} is no pattern: {error.msg}") from None


class Walked(Record):
    """The files a walk found, the paths it could not read, and the links it did not follow."""

    __slots__ = ("sources", "errors", "not_followed")

    def __init__(self) -> None:
        self.sources: list[Source] = []
        self.errors: list[str] = []
        # Symbolic links met in a walk whose targets lie outside the walked directory: not followed.
        self.not_followed: list[str] = []


def expand(paths: Iterable[str], options: WalkOptions | None = None) -> Walked:
    """Files named by ``paths`` (directories walked, globs expanded) and the errors found."""
    options = options or WalkOptions()
    walker = _Walker(options)
    for name in paths:
        if name == STDIN:
            try:
                walker.found.sources.append(spool_stdin())
            except InputError as error:
                walker.found.errors.append(str(error))
            continue
        if not os.path.lexists(name) and _GLOB_CHARACTERS & set(name):
            matches = sorted(_glob(name))
            if not matches:
                walker.found.errors.append(f"{printable_path(name)}: no file matches this pattern")
            for match in matches:
                if Path(match).suffix.lower() not in NOT_A_TRACE:  # what a walk passes over, a glob does too
                    walker.add(Path(match), match, named=False)
            continue
        walker.add(Path(name), name, named=True)
    return walker.found


def _glob(pattern: str) -> list[str]:
    """The names ``pattern`` matches, as glob.glob gives them, but a ``**`` never descends into a link to a
    directory: glob.glob(recursive=True) does, so two links to `..` made it endless and a link to / walked the
    file system.  pathlib's ``**`` stays off links; the parts before the first wildcard are its base, and
    hidden names are left out as glob.glob leaves them."""
    if "**" not in pattern:
        return glob.glob(pattern)
    parts = pattern.split(os.sep)
    if parts[-1] == "**":  # pathlib's ** alone matches directories only; glob's, what lies in them too
        parts.append("*")
    fixed = next(index for index, part in enumerate(parts) if _GLOB_CHARACTERS & set(part))
    base = os.sep.join(parts[:fixed]) or ("" if fixed == 0 else os.sep)
    found = []
    for match in Path(base or ".").glob(os.sep.join(parts[fixed:])):
        relative = match.relative_to(base or ".")
        if not any(part.startswith(".") for part in relative.parts):
            found.append(os.path.join(base, str(relative)) if base else str(relative))
    return found


class _Walker:
    def __init__(self, options: WalkOptions) -> None:
        self.options = options
        self.root = _absolute(options.root)
        self.found = Walked()

    @cached_property
    def cache(self) -> tuple[str, str]:
        """tlint's cache directory, as its name and its real path: a walk passes it over."""
        real = os.path.realpath(cache_dir())
        return os.path.basename(real), real

    def _is_cache(self, directory: str, name: str) -> bool:
        """Whether ``name`` in ``directory`` is tlint's cache directory (its real path looked up only for its name)."""
        cache_name, cache_real = self.cache
        return name == cache_name and os.path.realpath(os.path.join(directory, name)) == cache_real

    @cached_property
    def exclude(self) -> GitIgnoreSpec:
        """The exclude patterns: they apply in walked directories only."""
        return self.options.exclude_spec()

    def add(self, path: Path, name: str, *, named: bool) -> None:
        """``named``: the user named this file itself, so it must be a trace (a glob's matches may be anything)."""
        shown = printable_path(name)
        try:
            mode = os.stat(path).st_mode  # through links: a link named on the command line is followed
        except OSError as error:
            if error.errno not in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):  # a folder on the way without permission
                self.found.errors.append(f"{shown}: cannot read: {error.strerror or error}")
            elif os.path.islink(path):
                self.found.errors.append(f"{shown}: a broken symbolic link or a symbolic link loop")
            else:
                self.found.errors.append(f"{shown}: no such file or directory")
            return
        if stat.S_ISDIR(mode):
            self.walk(path)
        elif stat.S_ISREG(mode):
            self.found.sources.append(Source(path, shown, named=named))
        else:  # a FIFO would wait for a writer forever, a device never end
            self.found.errors.append(f"{shown}: not a regular file or directory")

    def walk(self, top: Path) -> None:
        def report(error: OSError) -> None:
            self.found.errors.append(f"{printable_path(str(error.filename))}: cannot read directory: {error.strerror}")

        top_absolute = _absolute(top)
        chain = self._enclosing_gitignores(top_absolute)
        base: Path | None = None  # what exclude patterns are relative to: the project's root
        if self._left_out(top_absolute, top_absolute, chain, directory=True):
            # The user named a directory that a pattern or a .gitignore excludes (a git-ignored folder of
            # traces, say): naming it is the choice to check it.  What excludes it is not applied to what is
            # in it; patterns and .gitignore files then count from it, as for a directory outside the project.
            chain, base = [], top_absolute
        # Each directory's .gitignore chain (its ancestors' files, shallowest first), handed down as the walk
        # enters it: a file is matched against its own directory's chain only.
        chains = {top_absolute: chain}
        # Symbolic links to directories are not followed: a link loop cannot send the walk in circles.  Links to
        # files are followed only within the walked directory: a link named like a rank file must not make a
        # check of an untrusted tree read (and the full report quote) /proc/self/environ or ~/.ssh/id_rsa.
        inside = os.path.join(os.path.realpath(top), "")
        for directory, dirnames, filenames in os.walk(top, onerror=report):
            here = Path(directory)
            here_absolute = _absolute(here)
            chain = chains.pop(here_absolute, [])
            if self.options.respect_gitignore and GITIGNORE in filenames:
                chain = [*chain, (here_absolute, _read_gitignore(here / GITIGNORE))]
            # What the patterns match is each entry's path relative to a base directory: the part up to this
            # directory is worked out once for all its entries (a run directory holds thousands of files).
            exclude_base = base or (self.root if here_absolute.is_relative_to(self.root) else top_absolute)
            place = (_prefix(here_absolute, exclude_base), [(_prefix(here_absolute, folder), spec) for folder, spec in chain])
            kept = []
            for name in sorted(dirnames):
                if not name.startswith(".") and not self._left_out_here(place, name + "/") and not self._is_cache(directory, name):  # `name/`: directories only
                    kept.append(name)
                    chains[here_absolute / name] = chain
            dirnames[:] = kept
            for name in sorted(filenames):
                if name.startswith(".") or os.path.splitext(name)[1].lower() in NOT_A_TRACE or self._left_out_here(place, name):
                    continue
                path = here / name
                if os.path.islink(path) and not os.path.realpath(path).startswith(inside):
                    self.found.not_followed.append(printable_path(str(path)))
                elif os.path.isfile(path):
                    self.found.sources.append(Source(path, printable_path(str(path))))
                elif os.path.islink(path) and not os.path.exists(path):
                    # A link to a fifo or a device is passed over, as the fifo or device itself would be.
                    self.found.errors.append(f"{printable_path(str(path))}: a broken symbolic link or a symbolic link loop")

    def _left_out(self, absolute: Path, top: Path, chain: _Chain, *, directory: bool, base: Path | None = None) -> bool:
        """Whether the exclude patterns or the .gitignore files of ``chain`` leave out ``absolute`` (under ``top``)."""
        suffix = "/" if directory else ""  # gitignore's `name/` matches directories only
        if base is None:
            base = self.root if absolute.is_relative_to(self.root) else top  # outside the project: the walked directory
        relative = absolute.relative_to(base).as_posix()
        return self.exclude.match_file(relative + suffix) or _gitignored(absolute, suffix, chain)

    def _left_out_here(self, place: tuple[str, list[tuple[str, GitIgnoreSpec]]], entry: str) -> bool:
        """:meth:`_left_out` of an entry of the directory ``place`` describes: the path to it from the exclude
        patterns' base, and from each .gitignore's directory (see :func:`_prefix`)."""
        exclude_prefix, ignores = place
        return self.exclude.match_file(exclude_prefix + entry) or _ignored(entry, ignores)

    def _enclosing_gitignores(self, top: Path) -> _Chain:
        """The .gitignore files of ``top``'s parents up to the repository's top, shallowest first (none outside a repository)."""
        if not self.options.respect_gitignore:
            return []
        parents = list(top.parents)
        for index, folder in enumerate(parents):
            if os.path.exists(folder / ".git"):  # os.path: a folder without permission is no repository, not an error
                repository = reversed(parents[: index + 1])
                return [(folder, _read_gitignore(folder / GITIGNORE)) for folder in repository if os.path.isfile(folder / GITIGNORE)]
        return []


_Chain: TypeAlias = "list[tuple[Path, GitIgnoreSpec]]"  # (directory, its .gitignore), shallowest first


def _gitignored(absolute: Path, suffix: str, chain: _Chain) -> bool:
    """The last verdict of the chain's files on ``absolute``: a deeper file overrides a shallower one."""
    return _ignored(absolute.name + suffix, [(_prefix(absolute.parent, folder), spec) for folder, spec in chain])


def _ignored(entry: str, ignores: list[tuple[str, GitIgnoreSpec]]) -> bool:
    """The last verdict on ``entry`` of the .gitignore files (each with the path to the entry's directory from
    its own, see :func:`_prefix`): a deeper file overrides a shallower one."""
    verdict = False
    for prefix, spec in ignores:
        include = spec.check_file(prefix + entry).include
        if include is not None:
            verdict = include
    return verdict


def _prefix(directory: Path, base: Path) -> str:
    """What comes before an entry's name in its path relative to ``base``: ``a/b/`` for ``base/a/b``, ``""`` for ``base``."""
    relative = directory.relative_to(base).as_posix()
    return "" if relative == "." else relative + "/"


def _absolute(path: Path) -> Path:
    """``path`` made absolute without following symbolic links, so that it stays under the walked directory."""
    return Path(os.path.abspath(path))


def _read_gitignore(path: Path) -> GitIgnoreSpec:
    from pathspec import GitIgnoreSpec

    try:
        with open_regular(path, str(path)) as stream:
            text = stream.read().decode("utf-8", "replace")
    except (InputError, OSError):  # unreadable, or a FIFO that would never end: as if it were not there
        return GitIgnoreSpec.from_lines([])
    return GitIgnoreSpec.from_lines(text.splitlines(), _gitignore_line)


def _gitignore_line(line: str) -> GitIgnoreSpecPattern:
    r"""A .gitignore line as git reads it: one that is no pattern (a lone `!`, a trailing `\`, a range backwards
    such as `[z-a]`, which pathspec cannot compile to a regular expression) matches nothing."""
    from pathspec.patterns.gitignore import GitIgnorePatternError
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    try:
        return GitIgnoreSpecPattern(line)
    except (GitIgnorePatternError, re.error):
        return GitIgnoreSpecPattern("")  # as a blank line
