"""What ``benchmarks/bench_scale.py`` prints from its measurements: CPU per process kind
per notebook, the goals, and the projections to larger classes (every figure an input
measured in the same run; the formulas are printed with their inputs)."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Goals of the cluster's efficiency (bench_scale's docstring).
WORKER_VS_LOCAL = 0.10  # workers' CPU per notebook within 10% of local grading's
OVERHEAD_SHARE = 0.05  # client + scheduler + database at most 5% of the grading CPU
THIS_MACHINE_HOURS = 1.0  # 1,000 students x 7 problem sets on this machine (issue 28)

LIMITS = {"grading CPU": "grading CPU (add worker cores)",
          "recording": "recording rate (the client records one batch after another)",
          "scheduler": "the scheduler (one process, one core)"}


@dataclass
class Measured:
    """Seconds measured in one run; ``graded``: notebooks graded by each run."""

    cores: int
    graded: int
    local_wall: float
    local_cpu: float  # local grading: its process, grading processes and kernels
    cluster_wall: float
    workers: int
    worker_cpu: float  # dask worker trees (nanny, worker, kernels) over the grading
    worker_idle_cpu: float  # theirs over the idle window (idle_seconds)
    client_cpu: float  # the client process over the grading
    scheduler_cpu: float
    db_cpu: float  # the PostgreSQL server's processes
    steady_nb: int  # notebooks received after the first result
    steady_wall: float  # from the first result on: wall s and the CPU s of each kind
    steady_client_cpu: float
    steady_record_cpu: float  # the client's while recording (files and gradebook)
    steady_scheduler_cpu: float
    steady_db_cpu: float
    idle_seconds: float  # an idle window before grading, the cluster up
    scheduler_idle_cpu: float  # the scheduler's CPU over that window
    scheduler_alone_cpu: float  # the scheduler's over such a window before workers joined
    sqlite_rate: float  # notebooks/s recorded in batches (record_many)
    pg_rate: float
    batch: int
    # local grading of the first half of the class alone (0 graded: not measured): with the
    # whole class's run it splits local CPU into a run's start (its grading processes'
    # imports, their kernels' templates) and a share per notebook
    half_graded: int = 0
    half_local_cpu: float = 0.0
    # the machine's busy CPU over the same two local runs (``/proc/stat``, 0: not measured):
    # a check on the trees, which once missed every warm kernel (killed unreaped)
    local_machine_cpu: float = 0.0
    half_machine_cpu: float = 0.0


def split(whole: float, half: float, graded: int, half_graded: int) -> tuple[float, float]:
    """``(CPU s to start a run, CPU s a notebook)`` from a whole class's run and its first
    half's alone."""
    marginal = (whole - half) / (graded - half_graded)
    return max(0.0, whole - marginal * graded), marginal


def derive(m: Measured) -> dict:
    """Per-notebook CPU seconds and rest rates from the measurements (formulas as printed)."""
    n, k = max(1, m.graded), max(1, m.steady_nb)
    d = {"n": n, "k": k, "local": m.local_cpu / n, "worker_run": m.worker_cpu / n}
    d["rest_w"] = m.worker_idle_cpu / (m.idle_seconds * m.workers)  # CPU s/s of one worker at rest
    d["busy"] = (m.worker_cpu - d["rest_w"] * m.workers * m.cluster_wall) / n
    d["worker"] = d["busy"] / (1 - d["rest_w"])  # on a core of its own, rest cost included
    d["fixed"], d["per_beat"] = scheduler_at_rest(m)
    d["sched"] = (m.steady_scheduler_cpu - _rest(d["fixed"], d["per_beat"], m.workers)
                  * m.steady_wall) / k
    if 0 < m.half_graded < m.graded:
        d["start"], d["marginal"] = split(m.local_cpu, m.half_local_cpu, m.graded,
                                          m.half_graded)
    d["client"], d["db"] = m.steady_client_cpu / k, m.steady_db_cpu / k
    d["client_other"] = max(0.0, m.steady_client_cpu - m.steady_record_cpu) / k
    return d


def per_notebook(m: Measured) -> list[str]:
    """The table of CPU per process kind and the two goals."""
    d = derive(m)
    n, k = d["n"], d["k"]
    rows = [("local grading (process, grading processes, kernels)", m.local_cpu, None),
            (f"cluster workers x{m.workers} (nanny, worker, kernels)", m.worker_cpu, None),
            ("cluster client (this process)", m.client_cpu, m.steady_client_cpu),
            ("cluster scheduler", m.scheduler_cpu, m.steady_scheduler_cpu),
            ("database (PostgreSQL server)", m.db_cpu, m.steady_db_cpu)]
    lines = [(f"{'CPU per process kind':<56}{'CPU s':>8}{'s / notebook':>14}"
              f"{'after 1st result':>18}")]
    lines += [f"{name:<56}{cpu:>8.1f}{cpu / n:>14.3f}"
              + (f"{steady / k:>18.3f}" if steady is not None else "") for name, cpu, steady in rows]
    rest_run = d["rest_w"] * m.workers * m.cluster_wall
    lines.append(f"workers at rest: {d['rest_w']:.4f} CPU s/s each (nanny and worker: heartbeats, "
                 f"monitors), {rest_run:.1f} s of their {m.worker_cpu:.1f} s over this run's "
                 f"{m.cluster_wall:.0f} s; above it {d['busy']:.3f} s / notebook, on a core of "
                 f"their own {d['busy']:.3f} / (1 - {d['rest_w']:.4f}) = {d['worker']:.3f}")
    measured, busy, own = (d[x] / d["local"] for x in ("worker_run", "busy", "worker"))
    lines.append(f"workers / local grading, CPU per notebook: {measured:.3f} as measured on this "
                 f"shared machine, {busy:.3f} above their rest, {own:.3f} on cores of their own "
                 f"(goal within {WORKER_VS_LOCAL:.0%}: "
                 f"{'met' if abs(own - 1) <= WORKER_VS_LOCAL else 'MISSED'} on cores of their own, "
                 f"{'met' if abs(measured - 1) <= WORKER_VS_LOCAL else 'MISSED'} as measured)")
    whole = (m.client_cpu + m.scheduler_cpu + m.db_cpu) / n / d["worker_run"]
    steady = (d["client"] + m.steady_scheduler_cpu / k + d["db"]) / d["worker_run"]
    # on cores of their own, the workers finish a notebook every worker / workers seconds
    sched_own = d["sched"] + _rest(d["fixed"], d["per_beat"], m.workers) * d["worker"] / m.workers
    own_share = (d["client"] + sched_own + d["db"]) / d["worker"]
    lines.append(f"client + scheduler + database / workers' CPU per notebook: {whole:.1%} over "
                 f"the run, {steady:.1%} after the first result ({k} notebooks); on cores of "
                 f"their own ({d['client']:.4f} + {sched_own:.4f} + {d['db']:.4f}) / "
                 f"{d['worker']:.3f} = {own_share:.1%} (goal <= {OVERHEAD_SHARE:.0%}: "
                 f"{'met' if own_share <= OVERHEAD_SHARE else 'MISSED'} on cores of their own, "
                 f"{'met' if steady <= OVERHEAD_SHARE else 'MISSED'} as measured)")
    return lines


def _interval(workers: int) -> float:
    from distributed.scheduler import heartbeat_interval  # what Dask asks of its workers

    return heartbeat_interval(workers)


def _rest(fixed: float, per_beat: float, workers: int) -> float:
    """The scheduler's CPU seconds per second at rest with ``workers`` workers."""
    return fixed + per_beat * workers / _interval(workers)


def scheduler_at_rest(m: Measured) -> tuple[float, float]:
    """(CPU s/s of the scheduler alone, CPU s per heartbeat): from the two idle windows."""
    fixed = m.scheduler_alone_cpu / m.idle_seconds
    beats = m.workers / _interval(m.workers) * m.idle_seconds
    return fixed, max(0.0, m.scheduler_idle_cpu - m.scheduler_alone_cpu) / beats


def _h(seconds: float) -> str:
    return f"{seconds / 3600:.2f} h"


def _machine_projection(m: Measured, total: int) -> str:
    """The 1,000 x 7 projection from the machine's busy CPU over the two local runs."""
    n = max(1, m.graded)
    line = (f"  the same from the machine's busy CPU over the local runs (/proc/stat, "
            f"{m.local_machine_cpu:.1f} s against the trees' {m.local_cpu:.1f}: every process "
            f"on the machine, otherwise idle): ")
    if 0 < m.half_graded < m.graded and m.half_machine_cpu > 0:
        start, marginal = split(m.local_machine_cpu, m.half_machine_cpu, m.graded,
                                m.half_graded)
        hours = (start + total * marginal) / m.cores / 3600
        line += (f"({start:.1f} CPU s to start a run + {total:,} x {marginal:.3f} CPU s a "
                 f"notebook) / {m.cores} cores = {hours:.2f} h")
    else:
        hours = total * m.local_machine_cpu / n / m.cores / 3600
        line += f"{total:,} x {m.local_machine_cpu / n:.3f} CPU s / {m.cores} cores = {hours:.2f} h"
    return line + (f" (goal < {THIS_MACHINE_HOURS} h: "
                   f"{'met' if hours < THIS_MACHINE_HOURS else 'MISSED'})")


def projections(m: Measured) -> list[str]:
    d = derive(m)
    c_local, c_worker, c_sched, c_other = d["local"], d["worker"], d["sched"], d["client_other"]
    fixed, per_beat = d["fixed"], d["per_beat"]
    lines = ["measured rates:",
             (f"  grading: {1 / c_local:.3f} notebooks/s per core locally (1 / {c_local:.3f} CPU s), "
              f"{1 / c_worker:.3f} per worker core on the cluster (1 / {c_worker:.3f} CPU s); "
              f"wall: local {m.graded / m.local_wall / m.cores:.3f}, cluster "
              f"{m.graded / m.cluster_wall / m.cores:.3f} notebooks/s per core of this machine"),
             (f"  recording in batches of {m.batch} (record_many, one writer): sqlite "
              f"{m.sqlite_rate:.0f} notebooks/s, PostgreSQL {m.pg_rate:.0f} notebooks/s"),
             (f"  client besides recording: {c_other * 1000:.1f} ms CPU per notebook; "
              f"scheduler: {c_sched * 1000:.1f} ms CPU per notebook above its rest; at rest "
              f"{fixed:.4f} CPU s/s + {per_beat * 1000:.2f} ms per worker heartbeat (Dask's "
              f"interval for {m.workers} workers: {_interval(m.workers)} s)")]
    total = 1000 * 7
    whole = total * c_local / m.cores
    wall = total / (m.graded / m.local_wall)
    if "marginal" in d:  # a run's start once, then each notebook's share
        local = (d["start"] + total * d["marginal"]) / m.cores
        how = (f"({d['start']:.1f} CPU s to start a run + {total:,} x {d['marginal']:.3f} CPU s "
               f"a notebook) / {m.cores} cores = {_h(local)}; counting each notebook at this "
               f"run's {c_local:.3f} CPU s, start included, {_h(whole)}")
    else:
        local = whole
        how = f"{total:,} x {c_local:.3f} CPU s / {m.cores} cores = {_h(local)}"
    lines += ["projections (notebooks / the lowest rate; grading CPU-bound on cores of its own):",
              (f"  1,000 x 7 = {total:,} notebooks on this machine, local grading + sqlite: "
               f"{how}, counting the process trees' CPU"
               + ("" if m.local_machine_cpu > 0 else
                  f" (goal < {THIS_MACHINE_HOURS} h: "
                  f"{'met' if local / 3600 < THIS_MACHINE_HOURS else 'MISSED'})") + "; "
               f"at this run's wall rate ({m.graded / m.local_wall:.3f} notebooks/s) "
               f"{_h(wall)}; limit: grading CPU (sqlite records inside each grading process)")]
    if m.local_machine_cpu > 0:
        lines.append(_machine_projection(m, total))
    big = 30_000 * 7
    for cores in (50, 200):  # one one-thread worker per core
        rest = _rest(fixed, per_beat, cores)
        spare = 1 - rest
        rates = {"grading CPU": cores / c_worker,
                 "recording": 1 / (c_other + 1 / m.pg_rate),
                 "scheduler": (spare / c_sched if c_sched > 0 else math.inf) if spare > 0 else 0.0}
        limit = min(rates, key=rates.get)
        lines.append(
            f"  30,000 x 7 = {big:,} notebooks on {cores} worker cores + PostgreSQL: grading CPU "
            f"{cores} / {c_worker:.3f} = {rates['grading CPU']:.1f} nb/s; recording 1 / "
            f"({c_other:.4f} + 1 / {m.pg_rate:.0f}) = {rates['recording']:.1f} nb/s; scheduler "
            f"(1 - {rest:.3f} at rest) / {c_sched:.4f} = {rates['scheduler']:.1f} nb/s -> "
            f"{big:,} / {rates[limit]:.1f} = {_h(big / rates[limit]) if rates[limit] else 'never'}"
            f"; limit: {LIMITS[limit]}")
    return lines
