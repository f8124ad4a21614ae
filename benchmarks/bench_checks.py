"""Latency of the kpca-check service: median and 95th percentile over 100 checks.

Starts the service (:mod:`kit.checks.service`) on 127.0.0.1 beside a stand-in for the hub's
``/hub/api/user`` (ten students), with a temporary course and sqlite attempts table, then
times 100 checks one after the other from the client's side (HTTP, token look-up, judging
in a judging process, the attempt written): exact items of ps1, ps4 and ps5, right and
wrong answers, each student's first check of a problem set included (their key is computed
then)::

    python benchmarks/bench_checks.py [--checks 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tornado import ioloop, web

from kit.checks.service import make_app
from kpca_probe.wire import encode
from kpca_ref import variants

ITEMS = ["ps1_lift_point", "ps1_three_point_variances", "ps4_poly_Kc", "ps5_3pt_alpha",
         "ps5_new_point_scores"]
STUDENTS = [f"student{i:02d}" for i in range(10)]


class Hub(web.RequestHandler):
    def get(self):
        token = self.request.headers.get("Authorization", "").partition(" ")[2]
        if not token.startswith("tok-"):
            raise web.HTTPError(403)
        self.finish({"kind": "user", "name": token[4:], "groups": ["students"],
                     "scopes": ["access:services!service=kpca-check"]})  # as a student's


def start(course: Path) -> str:
    from tests.browser.harness import free_port

    hub_port, port, ready = free_port(), free_port(), threading.Event()

    def run():
        asyncio.set_event_loop(asyncio.new_event_loop())
        web.Application([(r"/hub/api/user", Hub)]).listen(hub_port, "127.0.0.1")
        app = make_app(course, f"http://127.0.0.1:{hub_port}/hub/api", overrides={
            "db_url": f"sqlite:///{course / 'checks.db'}", "per_minute": 1000,
            "student_groups": ["students"],
            "limits": {ps: 1000 for ps in variants.PROBLEM_SETS}})
        app.listen(port, "127.0.0.1")
        ready.set()
        ioloop.IOLoop.current().start()

    threading.Thread(target=run, daemon=True).start()
    ready.wait(120)
    return f"http://127.0.0.1:{port}/services/kpca-check/check"


def check(url: str, student: str, item: str, answer) -> tuple[float, str]:
    body = json.dumps({"item": item, "answer": encode(answer)}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Authorization": f"token tok-{student}", "Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            verdict = json.loads(response.read())["verdict"]
    except urllib.error.HTTPError as exc:
        verdict = json.loads(exc.read())["verdict"]
    return time.perf_counter() - start, verdict


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=100)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        url = start(Path(tmp))
        check(url, "warmup", "ps1_lift_point", 0)  # waits for the judging processes
        times, verdicts, first, seen = [], {}, [], set()
        for n in range(args.checks):
            student, item = STUDENTS[n % len(STUDENTS)], ITEMS[(n // len(STUDENTS)) % len(ITEMS)]
            right = variants.answer(item, student)[0]
            answer = right if n % 2 else (right * 2 if right != 0 else right + 1)
            seconds, verdict = check(url, student, item, answer)
            times.append(seconds)
            ps = variants.problem_set_of(item)
            if (student, ps) not in seen:
                first.append(seconds)
                seen.add((student, ps))
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * len(times)) - 1)]
    print(f"{len(times)} checks ({', '.join(f'{v} {k}' for k, v in sorted(verdicts.items()))}): "
          f"median {statistics.median(times) * 1000:.0f} ms, 95th percentile {p95 * 1000:.0f} ms, "
          f"slowest {times[-1] * 1000:.0f} ms")
    later = sorted(set(times) - set(first)) or [0.0]
    print(f"  a student's first check of a problem set ({len(first)}; their key is computed): "
          f"median {statistics.median(first) * 1000:.0f} ms; the others: median "
          f"{statistics.median(later) * 1000:.0f} ms, slowest {later[-1] * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
