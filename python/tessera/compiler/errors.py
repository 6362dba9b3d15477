"""CompilationError: a user error in kernel code, with file, line, column and a source excerpt."""

from ..errors import TritonError


class CompilationError(TritonError):
    """An error in kernel code found while compiling it.

    Attributes: filename, lineno (1-based), col_offset (0-based), message, and
    `src_line` (the offending line). str() shows `file:line:col: message`, the
    source line and a caret under the column.
    """

    def __init__(self, message, filename=None, lineno=None, col_offset=None, src_line=None, notes=()):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col_offset = col_offset
        self.src_line = src_line
        self.notes = list(notes)
        super().__init__(self._render())

    def _render(self):
        head = self.message
        if self.filename is not None and self.lineno is not None:
            col = (self.col_offset or 0) + 1
            head = f"{self.filename}:{self.lineno}:{col}: {self.message}"
        lines = [head]
        if self.src_line is not None:
            text = self.src_line.rstrip("\n")
            stripped = text.lstrip()
            indent = len(text) - len(stripped)
            lines.append("    " + stripped)
            if self.col_offset is not None and self.col_offset >= indent:
                lines.append("    " + " " * (self.col_offset - indent) + "^")
        lines.extend(self.notes)
        return "\n".join(lines)

    def __reduce__(self):
        return (CompilationError, (self.message, self.filename, self.lineno, self.col_offset, self.src_line,
                                   self.notes))
