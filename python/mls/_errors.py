"""mls errors as Python exceptions: one class per family of diagnostic codes (docs/errors.md).

Every mls.Error carries the first error's code, message and place (file, line, col, ``at`` as
"file:line:col"), its did-you-mean suggestions and help, every diagnostic of the failure
(``diagnostics``, dicts with the same fields) and their rendering as the command line prints it
(``text``, with the source line and caret), which is also ``str(error)``.
"""


class Error(Exception):
    """An mls diagnostic: a program that does not parse, check or evaluate."""

    def __init__(self, message, code="internal", diagnostics=(), text=""):
        super().__init__(text or message)
        first = diagnostics[0] if diagnostics else {}
        self.code = code
        self.message = message
        self.file = first.get("file")
        self.line = first.get("line")
        self.col = first.get("col")
        self.at = first.get("at", "")
        self.suggestions = list(first.get("suggestions", []))
        self.help = list(first.get("help", []))
        self.exit_code = first.get("exit_code", 65)
        self.diagnostics = [dict(d) for d in diagnostics]
        self.text = text or message
        self.run = None  # mls.run(...) with evaluation errors: the Run with what did evaluate

    def __str__(self):
        return self.text.rstrip("\n")

    def _repr_html_(self):
        from . import _display

        return _display.wrap(_display.error(self))


class ParseError(Error):
    """parse.*: the text is not mls."""


class LoadError(Error):
    """load.*, io.*, hf.*, trace.*, merge.*: a file that cannot be read as asked."""


class CheckError(Error):
    """Names, units, dimensions, types, conventions, presets: found before anything evaluates."""


class EvaluationError(Error):
    """runtime.*, solve.no_root, assert.failed: found while evaluating."""


class LimitError(Error):
    """limit.*: a bound on steps, output or memory was reached."""


class UsageError(Error, ValueError):
    """An argument of the Python call that mls cannot take (an unknown catalogue kind, ...)."""

    def __init__(self, message, code="usage", diagnostics=(), text=""):
        super().__init__(message, code, diagnostics, text)


class InternalError(Error):
    """internal: a bug in mls; please report it with the input."""


_FAMILIES = {
    "parse": ParseError,
    "load": LoadError,
    "io": LoadError,
    "hf": LoadError,
    "trace": LoadError,
    "merge": LoadError,
    "runtime": EvaluationError,
    "assert": EvaluationError,
    "limit": LimitError,
    "usage": UsageError,
    "internal": InternalError,
}
_EVALUATION = {"solve.no_root"}


def error_class(code):
    """The exception class for a diagnostic code ("dim.mismatch" -> CheckError)."""
    if code in _EVALUATION:
        return EvaluationError
    return _FAMILIES.get(code.split(".")[0], CheckError)


def make_error(diagnostics, text):
    """The exception for a failure: called by the extension with the diagnostics as dicts."""
    diagnostics = list(diagnostics)
    first = diagnostics[0] if diagnostics else {"code": "internal", "message": text}
    return error_class(first["code"])(first["message"], first["code"], diagnostics, text)
