"""What each number and comparison a notebook's text states is: the allow-list.

:data:`CLAIMS` maps ``(problem set prefix or "*", phrase)`` to what the phrase states, where
``phrase`` is a regular expression over the notebook's markdown (whitespace as in
:func:`tests.notebooks.stated_numbers.markdown`) and what it states is one of:

* :class:`Setting`: a definition or an instruction (a part's number, a chosen constant); with
  ``code``, a pattern the notebook's code must hold, so the text and the code agree;
* :class:`Notes`: from the lecture notes; the seed file (by prefix) must hold ``quote``;
* :class:`CheckedIn`: a claim checked by another test file, which must still hold ``needle``;
* :class:`Checked`: a claim checked by the named function of
  ``tests/notebooks/test_stated_numbers.py``, on every student's numbers where it is about them.

Every stated token (:mod:`tests.notebooks.stated_numbers`) must lie in a match of a phrase of
its notebook, and every phrase must match, so a number the text gains or loses fails a test.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    reason: str
    code: str | None = None


@dataclass(frozen=True)
class Notes:
    seed: str
    quote: str


@dataclass(frozen=True)
class CheckedIn:
    path: str
    needle: str


@dataclass(frozen=True)
class Checked:
    check: str


NB_TEXT = "tests/notebooks/test_notebook_text.py"
DECIMALS = "tests/notebooks/test_stated_decimals.py"
TAUGHT = "tests/notebooks/test_taught_claims.py"
LESSONS = "tests/ref/test_regression_lessons.py"
GRADING = "the grading rule every problem set states"
PS3_LIMITS = "kpca_ref/variants/ps3_language.py"

CLAIMS: dict[tuple[str, str], object] = {
    # every notebook: the plan, the points, the grading rules
    ("*", (r"\*\*Time:\*\* about \d+ minutes, one week's work \(every problem set of the unit takes "
          r"120 to 150\)\. Plan, in minutes: [^\n]*?\.")): CheckedIn(NB_TEXT, "Plan, in minutes: "),
    ("*", r"\*\*Points:\*\* [^\n]*"): Checked("points_lines"),
    ("*", (r"\d+ points are graded automatically[^.]*?by hand(?:, \d+ in all)?(?:[.:] ?(?:Part \d+[^()·]*"
          r"\((?:\d+(?: \+ \d+)*(?:,? written)?)\)[,.]? ?·? ?)+)?")): Checked("points_lines"),
    ("*", r"counts only when at least one group of values of the same function passes"):
        CheckedIn(NB_TEXT, "counts only when at least one group of values of the same function passes"),
    ("*", r"worth more than a long essay"): Setting("advice on written answers"),
    ("*", (r"\b(?:[Yy]ou will write|[Ww]rite and test)? ?(?:five|six|seven|Nine|Five) (?:small )?functions"
          r"(?: of kernel PCA| to write)?")): Checked("functions_to_write"),
    # ps0
    ("ps0", r"Three facts from the exam cards' first card"): Setting("the three numbered facts that follow it"),
    ("ps0", r"a hundred thousand random tries"): Setting("Part 6's search", code=("notebook", r"\b100000\b")),
    ("ps0", r"100,000 random directions"): Setting("Part 6's search", code=("notebook", r"\b100000\b")),
    ("ps0", r"concentrate at 90 degrees"): Checked("random_angles_near_90"),
    ("ps0", r"within about two or three standard errors"): Setting("the rule of thumb of Part 3's check"),
    ("ps0", r"Three routes to the number"): Setting("the three bullets that follow"),
    ("ps0", r"made on numbers near 1"): Setting("the reduction's first terms, a and 1 - cos a, in (0, 1]"),
    ("ps0", r"it is right to 8 digits, for \$m = 40\$ \(\$1\.3 \\times 10\^\{-13\}\$\) to 5"):
        CheckedIn(DECIMALS, "((30, 1.6e-10, 8), (40, 1.3e-13, 5))"),
    ("ps0", r"\(e\.g\. Part 2: 2 \+ 1\)"): Checked("points_lines"),
    ("ps0", r"For `angle` above 90 use"): Setting("the cap past a right angle, cap(a) = 1 - cap(180 - a)"),
    ("ps0", r"on the 2-sphere"): Setting("the unit sphere of R^3, m = 3, by its name"),
    ("ps0", r"with twice that probability"): Setting("the worked example's step (two opposite caps), "
                                                     "computed by its cell"),
    ("ps0", r"which tends to 1:"): Setting("the limit of 1 - (1 - eps)^m, the formula beside it"),
    # ps1
    ("ps1", r"95% rule|at least 95%"): Setting("the rule's threshold", code=("notebook", r"threshold=0\.95")),
    ("ps1", r"about 66% and both are kept; after, about 98%"): Checked("shares_of_the_card_on_curves"),
    ("ps1", r"\bsix (?:coordinates|entries)"): Setting("the lift's six coordinates [1, f1^2, f2^2, f1 f2, f1, f2]"),
    ("ps1", r"2 features became 6 coordinates"): Setting("the lift: R^2 to R^6"),
    ("ps1", r"(?:variances of|have|Your) three(?: points)?"): Setting("three points each", code=("notebook", r"N\.P3")),
    ("ps1", r"the notes' circle of 30 points"): Notes("000", "30 points on a circle"),
    ("ps1", r"each coordinate is within 3 of the centre's"): Checked("ps1_q_near_its_circle"),
    ("ps1", r"\(index 1\) is 1"): Setting("the normalisation of Part 7's vector"),
    ("ps1", r"Return the three floats"): Setting("the return value (a, b, r)"),
    ("ps1", r"Five points pin the conic down"): Setting("a conic: six coefficients up to a common factor"),
    ("ps1", r"add up to at least `threshold`|is at least `threshold"): Setting("components_needed's definition"),
    # ps2
    ("ps2", r"degree at most (?:\$p\$|2)"): Setting("the monomials counted, by definition"),
    ("ps2", r"a thousand features with cubic relationships already need more than \$10\^8\$"):
        Checked("thousand_features_cubic"),
    ("ps2", r"ten exact answers worked by hand"): Checked("exact_answers_count"),
    ("ps2", r"With four features \(height, weight, age, gender\) and power 3"): Setting("the lecture's example"),
    ("ps2", r"\(and 0 when \$k>n\$\)"): Setting("math.comb's documented value"),
    ("ps2", r"the three single features"): Setting("d = 3 of the lecture's example"),
    ("ps2", r"for \$d=2\$ the tally stops at 4"): Checked("tally_stops_at_4"),
    ("ps2", r"each factor 2 is shared out"): Setting("the sqrt 2 of the quadratic map"),
    ("ps2", r"add 1, square"): Setting("the quadratic kernel (x.x' + 1)^2"),
    ("ps2", r"\bsix (?:coordinates|products)"): Setting("the quadratic map's six coordinates"),
    ("ps2", r"a degree-10 kernel"): Setting("an example of a high degree"),
    ("ps2", r"slightly larger than 1: clip it at 0"): Setting("the RBF kernel's values, at most 1"),
    ("ps2", r"no two of them are more than \$\\sqrt2\$ apart"): Setting("d^2 = 2 - 2k <= 2, the formula beside it"),
    ("ps2", r"clip(?:ped)? at 0"): Setting("the instruction to clip"),
    ("ps2", r"three kernel values"): Setting("the distance k(x,x) - 2k(x,x') + k(x',x'), the formula beside it"),
    ("ps2", r"a unit half as large"): Setting("the re-measuring of Part 8 (b = 2)"),
    ("ps2", r"at distance 2\) and for four times and a quarter of it"): Setting("the plot's three gammas",
                                                                             code=("notebook", r"\(4\.0, 1\.0, 0\.25\)")),
    # ps3
    ("ps3", r"a kernel must satisfy 1 and 2"): Setting("the lesson's conditions 1 and 2"),
    ("ps3", r"condition 1 of Mercer's theorem"): Setting("the lesson's condition 1"),
    ("ps3", r"the deep half"): Setting("sufficiency, one of the two directions"),
    ("ps3", r"a floor of 1|is above 1 in size|when that is above 1|relative above scale 1"):
        Setting("the tolerance's floor", code=("notebook", r"max\(1\.0?, ")),
    ("ps3", r"(?s)\| what \| points \| time, about \|.*?\n\n"): Checked("ps3_plan_table"),
    ("ps3", (r"ten short proofs|the ten candidates|your ten candidate|Your ten candidates|your ten answers|"
            r"These ten answers|each of your ten candidates")): Setting("Part 7's ten slots",
                                                                        code=("kpca_ref/variants/ps3.py", r"SLOTS = 10")),
    ("ps3", r"Part 2's three cells 2 points each"): Checked("points_lines"),
    ("ps3", r"they may have 2, 3 or 4 coordinates"): Checked("ps3_point_dimensions"),
    ("ps3", r"scales from about 0\.1 to 10"): CheckedIn(
        "tests/variants/test_ps3_rules.py", "def test_the_notebooks_own_search_refutes_every_non_kernel_of_the_pool"),
    ("ps3", r"Keep the coordinates at most \$10\^6\$|of size at most \$10\^6\$"):
        Setting("the witness's limit", code=("kpca_ref/variants/ps3_certify.py", r"MAX_COORDINATE = 10\*\*6")),
    ("ps3", r"a few hundred point sets"): Setting("find_counterexample's budget", code=("notebook", r"range\(300\)")),
    ("ps3", r"of 40 fixed random points"): Setting("the picture's points", code=("notebook", r"standard_normal\(\(40, 2\)\)")),
    ("ps3", r"Which of the five is which"): Setting("the picture's five candidates"),
    ("ps3", r"a list of 1 to 8 points"): Setting("the witness's size",
                                                code=("kpca_ref/variants/ps3_certify.py", r"MAX_POINTS = 8")),
    ("ps3", r"and 0, is exact to the 40 digits the grader reads"):
        Setting("a coordinate's digits", code=("kpca_ref/variants/ps3_certify.py", r"_MAX_DIGITS = 40")),
    ("ps3", r"to 60 significant digits"): Setting("the grader's precision",
                                                  code=("kpca_ref/variants/ps3_equal.py", r"_DIGITS = 60")),
    ("ps3", r"\(10 × 0\.5 = 5\)"): Checked("points_lines"),
    ("ps3", r"Method 1: exhibit"): Notes("000", "Method 1"),
    ("ps3", r"the notes split a 2 as"): Setting("the sqrt 2 of the quadratic map"),
    ("ps3", (r"at most 40 rules nested 8 deep, `p` from 1 to 10, at most 16 features, each of at most 200 "
            r"sympy parts, powers of at most 12, degree at most 60 \(`\(x1 \+ x2\)\*\*12` has degree 12\)")):
        Checked("ps3_certificate_limits"),
    ("ps3", r"numbers of at most 40 digits"): Setting("an exact number's digits",
                                                      code=("kpca_ref/variants/ps3_reading.py", r"_MAX_DIGITS = 40")),
    ("ps3", r"Ten more examples"): Setting("the kit's table of ten, numbered in its first column"),
    ("ps3", r"is 1: try two points|is 1, yet two points suffice"): Setting("k(x, x) of the row's formula"),
    ("ps3", r"your argument in 2"): Setting("question 2 of Part 8"),
    # ps4
    ("ps4", r"gives four terms"): Setting("the expansion written beside it"),
    ("ps4", (r"three points whose features are orthonormal|Take the three scalar training points|"
            r"of the three points|your three (?:training )?points")): Setting("three points, n = 3"),
    ("ps4", r"whose coefficient is 0"): Setting("an instruction"),
    ("ps4", r"`K_poly` \(1 point"): Checked("points_lines"),
    ("ps4", r"Check your answer twice"): Setting("two checks, named after it"),
    ("ps4", r"the 2 x 2 example of Part 3"): Setting("Part 3's example, by its size"),
    ("ps4", r"Three more quantities"): Setting("the three bullets that follow"),
    ("ps4", r"\(1\) explain|\(2\) say"): Setting("the written question's parts"),
    ("ps4", r"every feature vector has length 1"): Setting("k(x, x) = 1, the formula beside it"),
    ("ps4", r"are all near 0"): Setting("the picture's far-away outliers: exp(-gamma d^2) for a large d"),
    # ps5
    ("ps5", (r"the exam card's 3-point example|A 3-point example by hand|The exam card's three points|"
            r"its three points, \$n = 3\$")): Setting("the exam card's example", code=("notebook", r"K_card|card")),
    ("ps5", r"the table comparing the three versions of PCA in notes 10-12"): Notes("000", "How the three versions of PCA in this block compare"),
    ("ps5", r"so at most \$n - 1\$ components exist"): Setting("K~ 1 = 0, the reason beside it"),
    ("ps5", r"fewer than `l` eigenvalues are positive"): Setting("kpca_fit's ValueError, by definition"),
    ("ps5", r"a random example with four components"): Setting("the demo's l", code=("notebook", r"kpca_fit\(Kc_demo, 4\)")),
    ("ps5", r"must be 1 for every component"): Setting("alpha^T K~ alpha = 1, the normalisation taught"),
    ("ps5", r"swapping points 1 and 2"): Setting("the example's points, by number"),
    ("ps5", r"the sum of its three \$2 \\times 2\$ principal minors"): Setting("a 3 x 3 matrix's minors"),
    ("ps5", r"all three eigenvalues"): Setting("a 3 x 3 matrix's eigenvalues"),
    ("ps5", r"Three observations with \$K = I_3\$"): Notes("002", "For three observations with Gram matrix $K=I$"),
    ("ps5", r"Six observations whose centred"): Notes("002", "For six training observations"),
    ("ps5", r"`l` is larger than \$n\$"): Setting("kpca_fit's ValueError, by definition"),
    ("ps5", r"The 004 derivation|the 004 derivation"): Setting("notes file 004, by its name"),
    ("ps5", r"`N\.K_hat` of three points"): Checked("ps5_k_hat_is_centred_3x3"),
    ("ps5", r"to 0\.5 or 50"): Setting("gammas to try after the problem set"),
    ("ps5", r"may exceed the input dimension"): CheckedIn(TAUGHT, "test_l_exceeds_d_on_every_students_poly_numbers"),
    ("ps5", r"rank at most \$d = 2\$"): Setting("the linear kernel's rank, at most the dimension"),
    ("ps5", r"there is always at least one"): Setting("K~ 1 = 0, taught in the lesson"),
    # ps6
    ("ps6", r"Problem sets 2-5"): Setting("the unit's problem sets, by number"),
    ("ps6", (r"a 3-point example by hand|Three points by hand|three training points `N\.x`|"
            r"with the three training points")): Setting("three points", code=("notebook", r"N\.x")),
    ("ps6", r"up to three coordinates"): Setting("the cubic kernel's map, by definition"),
    ("ps6", r"at most the number of linearly independent features"): Setting("rank(Phi Phi^T) = rank(Phi)"),
    ("ps6", r"That is 4 features, so the kernel matrix of 15 points on a line has rank 4 \(11 eigenvalues are 0\)"):
        CheckedIn(LESSONS, "test_fifteen_points_on_a_line_give_rank_four"),
    ("ps6", (r"the map's 15 ordered coordinates hold only 10 different monomials \(\$x_1x_2 = x_2x_1\$\), so 12 "
            r"points give rank 10")): CheckedIn(LESSONS, "test_twelve_points_in_the_plane_give_rank_ten"),
    ("ps6", r"at most 4 distinct points on a line"): Checked("four_points_on_a_line_cubic"),
    ("ps6", r"starts at 0|along eigenvalue 0"): Setting("the iteration's start and K's null space"),
    ("ps6", r"for 300 points"): Setting("the timing's size", code=("notebook", r"size=\(300, ")),
    ("ps6", r"matrix of three points of \$\\mathbb R\^3\$|`N\.K` of three other points"):
        Checked("ps6_k_is_a_gram_matrix"),
    ("ps6", r"a denominator of at most\s*100"): Checked("ps6_denominators_at_most_100"),
    ("ps6", r"the 12 points of Part 3"): CheckedIn(LESSONS, "12 points in 2-D"),
    ("ps6", (r"`K_tr` has rank 10, so no \$\\beta\$ reaches \$K\\beta = y\$, and the best any \$\\beta\$ can do is "
            r"the least-squares fit with the 10 monomials \(the error comes within 1% of that line after about "
            r"3,600 steps at 0\.95 times the bound and 6,800 at half of it")): CheckedIn(LESSONS, "3,600 steps"),
    ("ps6", r"is at most \$10\^\{-12\}\$ times the largest"): Setting("the suggested singularity check"),
    ("ps6", r"The cubic kernel matrix of 15 points on a line"): CheckedIn(LESSONS, "test_fifteen_points"),
    ("ps6", r"Part 6 has 8 points: 3 for `kernel_ridge`"): Checked("points_lines"),
    ("ps6", (r"Fifteen noisy samples|So `K_1d` \(\$15 \\times 15\$\) has rank 4: the cell prints its eigenvalues "
            r"\(11 of them are zero|through 15 noisy points")): CheckedIn(LESSONS, "11 of them are zero"),
    ("ps6", r"the best of five runs"): Setting("the timing's repeats", code=("notebook", r"for _ in range\(5\)")),
    ("ps6", r"close to 2 once \$n\$ is large"): Setting("O(n^2) per step, the lesson's cost, measured noisily"),
    ("ps6", r"derive the kernel update twice"): Setting("the two sections quoted below it"),
    ("ps6", r"a chain of three lines"): Setting("the quoted derivation's lines"),
    ("ps6", r"as for 15 points under the cubic kernel"): CheckedIn(LESSONS, "test_fifteen_points"),
    ("ps6", r"of up to three coordinates: \$O\(d\)\$"): Setting("the cubic kernel (x.x')^3 needs one dot product"),
    ("ps6", r"fewer independent features than points: 4 for the cubic kernel on a line"):
        CheckedIn(LESSONS, "test_fifteen_points"),
}


def phrases_for(ps: str) -> list[str]:
    """The phrases allowed in ``ps`` (``ps2_feature_maps`` or its prefix ``ps2``)."""
    return [phrase for (where, phrase) in CLAIMS if where in ("*", ps[:3])]
