"""Errors and warnings of the ltt package."""


class TraceError(Exception):
    """A trace (or its .proc file) that cannot be read.

    ``file`` names the file; ``offset`` is the byte offset of the damage in a
    trace (None for a .proc file), ``line`` the line of a .proc file's error.
    ``str()`` gives libltt's message, "FILE: offset N (0xN): WHAT".
    """

    def __init__(self, message, file=None, offset=None, line=None):
        super().__init__(message)
        self.file = file
        self.offset = offset
        self.line = line


class TruncatedTraceWarning(UserWarning):
    """The trace ends in something other than whole blocks (a producer killed
    mid-write, a copy cut short): it is read up to its last whole block."""


class UnfinishedTraceWarning(UserWarning):
    """Some CPU's last block is not flagged final: the producer did not stop
    the trace, so it may end earlier on those CPUs than was asked."""


class SymbolsWarning(UserWarning):
    """The trace's NAME.kallsyms copy exists but cannot be used: kernel
    frames stay raw addresses."""
