"""The numbers cell's due-date line: ``due_date()``, asked of the course's check service.

On the course's JupyterHub the numbers cell prints, after the student's numbers, their own
due date of the problem set, extension or exemption included (``Your due date for
ps1_circle_lift: 2026-12-13 17:00 Europe/Berlin (an extension of 3 days: ill). Late: ...``),
read when the cell runs from the check service (``POST <prefix>due``, :mod:`kit.checks.due`),
which knows who asks from the hub token and reads the course calendar: the release and the
exchange carry nothing per student, and a calendar changed after the release (an extension
granted today) shows at the next run. Off the hub it prints nothing; while nbgrader grades or
validates the notebook (``NBGRADER_EXECUTION``) it prints nothing, so feedback pages stay the
same; it waits at most 5 s and never raises.

Plain text, like :mod:`kpca_ref.variants.cell_extras`: the cell imports nothing of the kit.
"""

from __future__ import annotations

__all__ = ["DUE_CALL", "DUE_PART"]

DUE_PART = '''def due_date():
    """Your own due date of this problem set (extension included), from the course's hub:
    printed, and returned as a line (None off the hub)."""
    import json
    import urllib.error
    import urllib.request

    url, token = _os.environ.get("KPCA_CHECK_URL"), _os.environ.get("JUPYTERHUB_API_TOKEN")
    if _os.environ.get("NBGRADER_EXECUTION") or not url or not token:
        return None
    request = urllib.request.Request(
        url.rstrip("/") + "/due", data=json.dumps({"problem_set": _PS}).encode(), method="POST",
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            reply = json.loads(response.read(65536))
    except urllib.error.HTTPError as exc:
        try:
            reply = json.loads(exc.read(65536))
        except ValueError:
            reply = None
    except (OSError, ValueError):
        reply = None
    line = reply.get("message") if isinstance(reply, dict) else None
    if not isinstance(line, str) or not line.strip():
        line = "Your due date: the course's hub cannot say right now (run this cell again)."
    elif reply.get("verdict") != "due":
        line = f"Your due date: not shown ({line})"
    print(line[:500])
    return line[:500]'''

#: the numbers cell's last line: the due date under the numbers (kept in a name, so the
#: line is printed once and not shown again as the cell's value)
DUE_CALL = "_DUE_LINE = due_date()"
