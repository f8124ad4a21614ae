"""The kpca-check service against a fake hub: verdicts, identity, limits, hostile input."""

from __future__ import annotations

import concurrent.futures as cf
import sqlite3
import time

import sympy as sp

from kit.checks.policy import default_limit
from kpca_probe.wire import encode
from kpca_ref import variants
from kpca_ref.grading.answers import mistaken_values

ITEM = "ps1_lift_point"


def key(item: str, student: str):
    return variants.answer(item, student)[0]


def rows(service, student: str, item: str | None = None) -> list[tuple]:
    with sqlite3.connect(service.db) as db:
        query = "SELECT item, slot, verdict, code FROM kpca_check_attempts WHERE student = ?"
        args = [student]
        if item:
            query += " AND item = ?"
            args.append(item)
        return db.execute(query + " ORDER BY id", args).fetchall()


def wrong_value(item: str, student: str):
    right = key(item, student)
    return right + sp.ones(*right.shape) if getattr(right, "is_Matrix", False) else right + 1


def test_right_and_wrong_answers_and_the_attempts_left(check_service):
    limit = default_limit(ITEM, 3)
    status, reply = check_service.post({"item": ITEM, "answer": encode(wrong_value(ITEM, "ada"))})
    assert (status, reply["verdict"], reply["counted"]) == (200, "wrong", True)
    assert limit >= 2 and reply["attempts_left"] == limit - 1
    assert f"({limit - 1} check{'s' if limit > 2 else ''} left)" in reply["message"]
    status, reply = check_service.post({"item": ITEM, "answer": encode(key(ITEM, "ada"))})
    assert (status, reply["verdict"], reply["attempts_left"]) == (200, "right", limit - 2)
    assert [r[2] for r in rows(check_service, "ada", ITEM)] == ["wrong", "right"]


def test_an_item_renamed_since_the_release_is_checked_under_its_new_name(check_service):
    """A notebook released before ps4's rename still says check("ps4_centre_2x2", ...)."""
    old, new = "ps4_centre_2x2", "ps4_centre_3x3"
    limit = default_limit(new, 3)
    status, reply = check_service.post({"item": old, "answer": encode(wrong_value(new, "ada"))})
    assert (status, reply["verdict"], reply["attempts_left"]) == (200, "wrong", limit - 1)
    status, reply = check_service.post({"item": new, "answer": encode(key(new, "ada"))})
    assert (status, reply["verdict"], reply["attempts_left"]) == (200, "right", limit - 2)
    assert [r[:3] for r in rows(check_service, "ada", new)] == [(new, 1, "wrong"), (new, 2, "right")]
    assert rows(check_service, "ada", old) == []


def test_a_named_mistake_gets_its_hint_and_the_key_is_never_sent(check_service):
    item = "ps1_three_point_variances"
    code, message, wrong = mistaken_values(item, "ada")[0]
    status, reply = check_service.post({"item": item, "answer": encode(wrong)})
    assert (status, reply["verdict"]) == (200, "mistake") and message in reply["message"]
    assert rows(check_service, "ada", item)[-1][3] == code
    right = key(item, "ada")
    assert all(str(v) not in reply["message"] for v in right if abs(v) > 1)


def test_not_exact_or_wrong_shape_uses_no_attempt(check_service):
    item = "ps1_circle_u"
    for answer in (encode(sp.Matrix([0.5, 1, 1, 0, 2, 3])), encode(sp.Matrix([1, 2])),
                   encode(1.5)):
        status, reply = check_service.post({"item": item, "answer": answer}, token="tok-bob")
        assert (status, reply["verdict"], reply["counted"]) == (200, "form", False), reply
        assert reply["attempts_left"] == default_limit(item, 3)
    assert all(r[1] is None for r in rows(check_service, "bob", item))


def test_the_user_comes_from_the_token_never_from_the_body(check_service):
    item = "ps1_circle_u"
    bobs = key(item, "bob")
    assert bobs != key(item, "ada")
    forged = {"item": item, "answer": encode(bobs), "user": "bob", "student": "bob",
              "student_id": "bob"}
    bob_before = rows(check_service, "bob", item)
    status, reply = check_service.post(forged, token="tok-ada")
    assert (status, reply["verdict"]) == (200, "wrong")  # judged on ada's numbers
    assert rows(check_service, "ada", item)[-1][2] == "wrong"
    assert rows(check_service, "bob", item) == bob_before
    status, reply = check_service.post({"item": item, "answer": encode(bobs)}, token="tok-bob")
    assert reply["verdict"] == "right"  # bob's token: bob's own key, and only his


def test_missing_foreign_or_garbled_requests_are_refused_and_cost_nothing(check_service):
    body = {"item": ITEM, "answer": encode(key(ITEM, "cy"))}
    assert check_service.post(body, token=None)[0] == 401
    assert check_service.post(body, token="tok-forged")[0] == 403
    assert check_service.post(None, token="tok-cy", raw=b"{not json")[0] == 400
    assert check_service.post({"item": ITEM}, token="tok-cy")[0] == 400
    status, reply = check_service.post({"item": "ps1_no_such", "answer": {"Z": "1"}},
                                       token="tok-cy")
    assert status == 404 and "no exact item" in reply["message"]
    status, reply = check_service.post({"item": "ps6_predict_new", "answer": {"Z": "4"}},
                                       token="tok-cy")
    assert status == 403 and "closed" in reply["message"]
    status, reply = check_service.post({"item": "ps3_verdict_1", "answer": {"b": True}},
                                       token="tok-cy")
    assert status == 403 and "one check would give that away" in reply["message"]
    assert rows(check_service, "cy") == []


def test_huge_and_malicious_answers_are_refused_cheaply(check_service):
    nested = {"list": []}
    for _ in range(3000):
        nested = {"list": [nested]}
    attempts = [
        (None, b'{"item": "ps1_lift_point", "answer": {"Z": "' + b"9" * 300_000 + b'"}}'),
        ({"item": ITEM, "answer": {"op": "Pow", "a": [{"Z": "10"}, {"Z": "100000000"}]}}, None),
        ({"item": ITEM, "answer": {"Z": "7" * 5000}}, None),
        ({"item": ITEM, "answer": {"M": [1, 3000], "d": [{"Z": "1"}] * 3000}}, None),
        (None, b'{"item": "ps1_lift_point", "answer": ' + b"[" * 20_000 + b"]" * 20_000 + b"}"),
        ({"item": ITEM, "answer": {"u": "__import__('os').system('id')"}}, None),
    ]
    for body, raw in attempts:
        start = time.monotonic()
        _, reply = check_service.post(body, token="tok-dee", raw=raw)
        assert time.monotonic() - start < 2.0
        assert reply["verdict"] in ("refused", "form") and not reply["counted"], reply
    assert all(r[1] is None for r in rows(check_service, "dee"))


def test_replay_and_brute_force_stop_at_the_limit(check_service):
    item = "ps0_ball_ratio"  # a family of 20 candidates: 2 checks
    limit = default_limit(item, 3)
    assert limit == 2
    right = key(item, "eve")
    guesses = [v for v in dict.fromkeys(
        variants.answer(item, f"guess{i}")[0] for i in range(40)) if v != right][:6] + [right]
    verdicts = [check_service.post({"item": item, "answer": encode(g)}, token="tok-eve")
                for g in guesses]
    assert [v[1]["counted"] for v in verdicts] == [True] * limit + [False] * (len(guesses) - limit)
    assert all(status == 429 for status, _ in verdicts[limit:])
    assert "right" not in [v[1]["verdict"] for v in verdicts]  # the right one came too late
    assert len([r for r in rows(check_service, "eve", item) if r[1] is not None]) == limit


def test_twenty_concurrent_checks_keep_the_limit(check_service):
    limit = default_limit(ITEM, 3)
    body = {"item": ITEM, "answer": encode(wrong_value(ITEM, "fay"))}
    with cf.ThreadPoolExecutor(20) as pool:
        replies = list(pool.map(lambda _: check_service.post(body, token="tok-fay"), range(20)))
    assert sum(1 for _, r in replies if r["counted"]) == limit
    assert sum(1 for s, _ in replies if s == 429) == 20 - limit
    assert len([r for r in rows(check_service, "fay", ITEM) if r[1] is not None]) == limit


def test_the_hub_is_asked_once_per_token_and_minute(check_service):
    check_service.post({"item": "ps1_no_such", "answer": {"Z": "1"}}, token="tok-ada")
    asked = len(check_service.hub_asked)
    for _ in range(3):
        check_service.post({"item": "ps1_no_such", "answer": {"Z": "1"}}, token="tok-ada")
    assert len(check_service.hub_asked) == asked  # the hub's answer is kept a minute


def run_numbers_cell(monkeypatch, env: dict) -> dict:
    from kpca_ref.variants.cell import numbers_cell

    for name in ("KPCA_STUDENT_ID", "KPCA_CHECK_URL", "JUPYTERHUB_API_TOKEN", "NBGRADER_EXECUTION"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    scope = {"STUDENT_ID": ""}
    exec(numbers_cell("ps1_circle_lift"), scope)  # noqa: S102 - the student's numbers cell
    return scope


def test_the_notebooks_check_prints_one_line_from_the_service(check_service, monkeypatch, capsys):
    scope = run_numbers_cell(monkeypatch, {"JUPYTERHUB_USER": "ada", "JUPYTERHUB_API_TOKEN":
                                           "tok-ada", "KPCA_CHECK_URL": check_service.url})
    capsys.readouterr()
    assert scope["check"]("ps1_circle_u", key("ps1_circle_u", "ada")) is None
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and out[0].startswith("check ps1_circle_u: right") and "left" in out[0]
    scope["check"]("ps1_lift_dot_u", key("ps1_lift_dot_u", "ada"))  # a guessable item
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "cannot be checked" in out[0] and "right" not in out[0]


def test_off_the_hub_check_says_so_in_one_line(monkeypatch, capsys):
    from tests.browser.harness import free_port

    scope = run_numbers_cell(monkeypatch, {"JUPYTERHUB_USER": "ada"})
    capsys.readouterr()
    scope["check"]("ps1_lift_point", sp.Matrix([1, 2, 3, 4, 5, 6]))
    assert "JupyterHub only" in capsys.readouterr().out
    scope["check"]("phi_Q", sp.Matrix([1, 2, 3, 4, 5, 6]))  # a variable's name, not the item's
    said = capsys.readouterr().out
    assert "not an exact question" in said and "ps1_lift_point, ps1_circle_u" in said
    scope = run_numbers_cell(monkeypatch, {"JUPYTERHUB_USER": "ada", "JUPYTERHUB_API_TOKEN": "x",
                                           "KPCA_CHECK_URL": f"http://127.0.0.1:{free_port()}/"})
    capsys.readouterr()
    scope["check"]("ps1_lift_point", sp.Matrix([1, 2, 3, 4, 5, 6]))
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "cannot be reached" in out[0]


def test_while_grading_check_says_nothing(monkeypatch, capsys):
    for execution in ("autograde", "validate"):  # what nbgrader sets in a graded kernel
        scope = run_numbers_cell(monkeypatch, {"NBGRADER_EXECUTION": execution,
                                               "KPCA_STUDENT_ID": "ada"})
        capsys.readouterr()
        assert scope["check"]("ps1_lift_point", sp.Matrix([1, 2, 3, 4, 5, 6])) is None
        assert capsys.readouterr().out == ""
