"""Size limits on the exact values the judge decodes (:func:`kpca_probe.wire.decode`).

An exact answer that passes a notebook's visible checks can still cost the judge hours: a
huge sympy expression for ``simplify``, ``10**(10**8)``, a gigantic matrix. Before
anything is built, :func:`magnitude` walks the encoded tree and checks its depth, its node
count (one :class:`Budget` per decoded value), the digits of every integer, and an upper
bound on the digits of what its numeric parts evaluate to; over a limit it raises
:class:`TooLarge`, and ``decode`` returns an ``Unreadable`` saying so.
"""

from __future__ import annotations

#: deepest nesting encoded; deeper values become unreadable
MAX_DEPTH = 40

#: Size limits checked before anything is built (an exact answer can be made to cost hours
#: in the judge: a huge expression, ``10**(10**8)``, a gigantic matrix). Honest answers of
#: ps1-ps5 have at most 21 nodes and 6-digit integers (ps0's exact ratios: 15-digit denominators).
MAX_NODES = 20_000  # sympy nodes (matrix entries included) in one decoded value
MAX_DIGITS = 1_000  # decimal digits of one integer, numerator or denominator
MAX_MAGNITUDE = 20_000  # estimated decimal digits of what a numeric part evaluates to


class TooLarge(ValueError):
    """The encoded value is over a size limit; it is refused before any arithmetic."""


class Budget:
    """How many sympy nodes one decoded value has used so far."""

    def __init__(self):
        self.nodes = 0

    def take(self, n: int = 1) -> None:
        self.nodes += n
        if self.nodes > MAX_NODES:
            raise TooLarge(f"more than {MAX_NODES} parts")


def checked_integer(text) -> int:
    """``int(text)``, refusing more than :data:`MAX_DIGITS` digits."""
    text = str(text)
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise TooLarge(f"an integer of more than {MAX_DIGITS} digits")
    return int(text)


def _literal_integer(data) -> int | None:
    """The value of an encoded integer literal of at most 30 digits, else None."""
    if isinstance(data, dict) and "Z" in data and len(str(data["Z"]).lstrip("-")) <= 30:
        return checked_integer(data["Z"])
    return None


def magnitude(data, depth: int, budget: Budget) -> float:
    """Checks sizes and returns an upper bound on the decimal digits the tree evaluates to."""
    if depth > MAX_DEPTH or not isinstance(data, dict):
        raise ValueError("bad sympy tree")
    budget.take()
    if "M" in data:
        rows, cols = (int(v) for v in data["M"])
        if rows < 0 or cols < 0 or rows * cols > MAX_NODES or not isinstance(data["d"], list):
            raise TooLarge(f"a matrix of more than {MAX_NODES} entries")
        return max([0.0] + [magnitude(v, depth + 1, budget) for v in data["d"]])
    if "Z" in data:
        return float(len(str(checked_integer(data["Z"]))))
    if "Q" in data:
        return float(max(len(str(checked_integer(data["Q"][0]))), len(str(checked_integer(data["Q"][1])))))
    if "F" in data or "c" in data or "s" in data:
        return 20.0
    args = data.get("a")
    if not isinstance(args, list):
        raise TypeError("bad sympy tree")
    sizes = [magnitude(a, depth + 1, budget) for a in args]
    if data.get("op") == "Mul":
        size = sum(sizes)
    elif data.get("op") == "Pow" and len(sizes) == 2:
        # |b**e| has about digits(b) * |e| digits: |e| itself for a literal integer exponent
        # (1/x is x**-1), else |e| < 10**digits(e)
        exponent = _literal_integer(args[1])
        if exponent is not None:
            size = sizes[0] * max(1, abs(exponent))
        else:
            size = sizes[0] * 10 ** min(sizes[1], 30) if sizes[1] > 0 else sizes[0]
    elif data.get("f") == "exp" and sizes:
        size = 10 ** min(sizes[0], 30)  # exp(x) has about x / 2.3 digits
    else:
        size = max([0.0] + sizes) + 1
    if size > MAX_MAGNITUDE:
        raise TooLarge(f"a number of more than {MAX_MAGNITUDE} digits")
    return size
