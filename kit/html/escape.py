"""Text into a page the kit writes itself: every field escaped, every address quoted.

The pages the kit builds from its own parts (the student's overview, :mod:`kit.checks.overview_page`)
print fields a student controls: her id, notebook names, an extension's reason. :func:`text`
makes such a field plain text in HTML (``<``, ``>``, ``&``, both quotes escaped; control,
bidi and invisible characters shown as escapes by :func:`kit.inert.inert`; optionally cut);
:func:`segment` makes it one path segment of a link (every reserved character quoted, so
it can neither leave the path nor start a scheme).
"""

from __future__ import annotations

import html
from urllib.parse import quote

from kit.inert import inert

__all__ = ["segment", "text"]


def text(value, limit: int | None = None) -> str:
    """``value`` as inert HTML text, safe in element content and in a quoted attribute.

    Examples
    --------
    >>> text('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    >>> text("ill\\u202e, note seen"), text("x" * 9, limit=3)
    ('ill\\\\u202e, note seen', 'xxx...')
    """
    return html.escape(inert(value, limit), quote=True)


def segment(value) -> str:
    """``value`` as one quoted path segment of a relative link (nothing left unquoted but
    letters, digits and ``_.-~``; ``.`` and ``..`` are refused).

    Examples
    --------
    >>> segment("ps1_circle_lift"), segment("a/../b?c#d")
    ('ps1_circle_lift', 'a%2F..%2Fb%3Fc%23d')
    """
    value = str(value)
    if value in ("", ".", ".."):
        raise ValueError(f"a link's path segment cannot be {value!r}")
    return quote(value, safe="")
