"""axe-core's accessibility checks of a page open in chromium (``axe-playwright-python``).

:func:`serious_violations` runs axe-core (the copy the package carries: nothing is fetched)
in the page and lists each violation of impact *serious* or *critical* as one line (rule,
impact, the first elements it names), so a test can assert the list is empty and a failure
says what to fix.
"""

from __future__ import annotations

#: the impacts a page must not have
BLOCKING = ("serious", "critical")


def serious_violations(page, exclude: tuple[str, ...] = ()) -> list[str]:
    """axe-core's serious and critical violations on ``page`` (a Playwright page), one line
    each; ``exclude``: CSS selectors of parts left out."""
    from axe_playwright_python.sync_playwright import Axe

    context = {"exclude": [[selector] for selector in exclude]} if exclude else None
    found = Axe().run(page, context=context).response["violations"]
    return [f"{v['id']} ({v['impact']}): {v['help']}: "
            + "; ".join(str(n["target"]) + " " + n["html"][:120] for n in v["nodes"][:3])
            for v in found if v.get("impact") in BLOCKING]
