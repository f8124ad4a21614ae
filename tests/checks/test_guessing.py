"""Checks cannot be used to guess an exact answer: each item's default limit keeps a
student who checks its commonest values right for at most a tenth of the class."""

from __future__ import annotations

import collections

import pytest

from kit.checks import guessing
from kit.checks.policy import default_limit
from kpca_ref import variants


def test_the_stored_counts_are_current_for_every_problem_set():
    stored = guessing.stored_counts()
    for ps in variants.PROBLEM_SETS:
        assert stored.get(ps, {}).get("fingerprint") == guessing.fingerprint(ps), (
            f"{ps}: kit/checks/guess_shares.json is stale: python -m kit.checks.guessing --write")
        checked = getattr(variants.module(ps), "CHECKED", frozenset())
        assert set(stored[ps]["items"]) == set(variants.module(ps).ITEMS) - checked


def test_the_stored_counts_are_what_counting_gives():
    ps = "ps1_circle_lift"  # answered quickly: every combination is counted again here
    for item, (total, counts) in guessing.stored_counts()[ps]["items"].items():
        assert guessing.item_counts(item) == (total, counts)


def test_a_small_domain_item_gets_few_or_no_checks():
    # 139 circles, 25 values of phi(q) . u, the commonest for 10.1% of the students
    total, counts = guessing.item_counts("ps1_lift_dot_u")
    assert total == 139 and counts[0] / total > guessing.GUESS_SHARE
    assert default_limit("ps1_lift_dot_u", 3) == 0
    assert default_limit("ps1_circle_u", 3) == 3  # 139 different u: three checks are harmless
    assert guessing.guess_limit("ps1_circle_u", 100) == int(139 * guessing.GUESS_SHARE)


@pytest.mark.parametrize("ps", ["ps1_circle_lift", "ps4_centering", "ps6_kernel_regression"])
def test_guessing_the_commonest_values_pays_for_few_students_of_a_real_class(ps):
    """600 students drawn as the notebooks draw them: a guesser who spends every check of
    an item on its commonest values (in this class, which favours the guesser) is right
    for few of them."""
    ids = [f"student{i:04d}" for i in range(600)]
    mod = variants.module(ps)
    answers = {sid: variants.variant(ps, sid).answers for sid in ids}
    for item in mod.ITEMS:
        limit = default_limit(item, 3)
        seen = collections.Counter(guessing._key(answers[s][item], item in mod.UP_TO_SIGN)
                                   for s in ids)
        right = sum(count for _, count in seen.most_common(limit))
        assert right / len(ids) <= 0.15, (item, limit, right)  # 10%, and the sample's noise


def test_yes_no_items_are_never_checked_whatever_the_limits_say(tmp_path):
    from kit.checks.policy import Policy

    policy = Policy(tmp_path, {"limits": {"ps3_mercer": 5, "ps3_verdict_2": 3}})
    for item in ("ps3_verdict_1", "ps3_verdict_2"):
        limit, why = policy.limit(item)
        assert limit == 0 and "yes or no" in why
    assert policy.limit("ps3_dist_gram")[0] == 5  # the problem set's limit holds for the rest
    assert Policy(tmp_path, {"limits": {"ps1_lift_dot_u": 2}}).limit("ps1_lift_dot_u")[0] == 2
