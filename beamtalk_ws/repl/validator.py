"""Show a syntax error under the input instead of sending it.

Only for input the completeness test calls `invalid` (no continuation can
make it parse, e.g. `]`): an incomplete input just gets a continuation
line, and a complete one is sent (the node side reports anything else).
Commands (`:load x.bt`) are not Beamtalk and are never checked.  Another
shell's habit (`b().`, `q().`) shows the hint naming our way instead of the
parse error, as `Repl.evaluate` answers it when it is sent.
"""

from __future__ import annotations

from prompt_toolkit.validation import ValidationError, Validator


def syntax_error(text: str):
    """(offset, message) of the first error of an invalid input, else None."""
    if not text.strip() or text.lstrip().startswith(":"):
        return None
    from beamtalk_ws.syntax import completeness, parse_with_diagnostics

    if completeness(text) != "invalid":
        return None
    _, diags = parse_with_diagnostics(text)
    errors = [d for d in diags if d.severity == "error"]
    if not errors:
        return None
    from .shell_habits import habit_hint

    habit = habit_hint(text)        # `b().`: name `:bindings`, not the parse error
    if habit is not None:
        return 0, habit
    d = errors[0]
    message = f"{d.span.line}:{d.span.col}: {d.message}"
    if d.hint:
        message += f" (hint: {d.hint})"
    return min(d.span.start, len(text)), message


class BeamtalkValidator(Validator):
    def validate(self, document) -> None:
        found = syntax_error(document.text)
        if found is not None:
            offset, message = found
            raise ValidationError(cursor_position=offset, message=message)
