"""Tests for the chapter-9 exercise checks: the students' self-checks and the lecturer's.

``kmlib.book.exercises.ch09`` ships the self-checks (an identity between the two
variances, the properties that determine a Nystrom approximation, the defining inequality
of D, the normal equations of streamed ridge, hashes of rounded numbers);
``_grading.reference.ch09`` holds the full checks that recompute every answer.  Both must
accept the right answer (computed here by an independent route: a closed form, Monte
Carlo, features.Nystroem, kmlib.ridge, StreamingRFFRidge); the reference must reject the
typical wrong answers with a message that diagnoses the mistake without revealing the
reference value, and the self-check those its properties can see; both reject ``None``.
The last test runs the exercise notebook as written (every check passes, both ways) and
with every solution replaced by ``None`` stubs (every check fails).
"""
from __future__ import annotations

import math
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _grading.reference import ch09 as reference
from scipy import linalg

from kmlib import features, kernels, ridge
from kmlib.book import large_scale as ls
from kmlib.book.exercises import ch09

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "09_large_scale.md"
BOTH = pytest.mark.parametrize("module", [ch09, reference], ids=["self", "reference"])
PASSED = {ch09: "Self-check passed:", reference: "Correct:"}


def _passed(module, capsys):
    out = capsys.readouterr().out
    assert out.startswith(PASSED[module]) and out.count("\n") == 1, out


def _no_number_leak(message: str, *values: float) -> None:
    """The failure message must not print the reference value (to 3 significant digits)."""
    for v in values:
        for fmt in (".3g", ".4f", ".5f", ".3f", ".2f", "d"):
            try:
                text = format(int(v) if fmt == "d" else v, fmt)
            except (ValueError, TypeError):
                continue
            assert text not in message or len(text) < 3, (text, message)


# --------------------------------------------------------------------------- #
# RFF variances for the Laplacian kernel
# --------------------------------------------------------------------------- #
K_LAP = math.exp(-0.4 / 0.5)
PAIR, PHASE = (1 - K_LAP**2) / 50, (1 - K_LAP**2 / 2) / 25


@BOTH
def test_rff_variances_accept_closed_form(module, capsys):
    """Reference: quadrature against the Cauchy density; here the closed form."""
    module.check_rff_variances(PAIR, PHASE, 0.4, 0.5, 25)
    _passed(module, capsys)


def test_rff_variances_closed_form_matches_monte_carlo():
    """Monte Carlo with the Cauchy spectral law, within 4 s.e., for the pair variance."""
    w = np.random.default_rng(1).standard_cauchy(400_000) / 0.5    # spectral law of exp(-|D|/0.5)
    c = np.cos(0.4 * w)
    assert abs(c.var() - PAIR * 25) <= 4 * np.std((c - c.mean()) ** 2) / math.sqrt(c.size)


@BOTH
@pytest.mark.parametrize("answer,match", [
    (((1 - K_LAP**2) ** 2 / 50, (1 + K_LAP**4 / 2 - K_LAP**2) / 25), "Gaussian kernel only"),
    ((PAIR, (1 + K_LAP**4 / 2 - K_LAP**2) / 25), "Gaussian kernel only"),
    ((PHASE, PAIR), "swapped"),
    ((PAIR * 25, PHASE), "single term"),
    ((PAIR, PHASE * 25), "single term"),
    ((PAIR * 1.3, PHASE), "does not match"),
    ((PAIR, PHASE * 1.3), "does not match"),
    ((None, PHASE), "is None"),
])
def test_rff_variances_reject_mistakes(module, answer, match):
    with pytest.raises(AssertionError, match=match) as err:
        module.check_rff_variances(*answer, 0.4, 0.5, 25)
    _no_number_leak(str(err.value), PAIR, PHASE)


def test_rff_variances_self_check_identity_for_other_values(capsys):
    """For other parameters the self-check can still see the swap, but not the values."""
    with pytest.raises(AssertionError, match="swapped"):
        ch09.check_rff_variances(0.04, 0.02, 0.3, 1.0, 25)
    with pytest.raises(AssertionError, match="sheet's values"):
        ch09.check_rff_variances(0.02, 0.04, 0.3, 1.0, 25)


# --------------------------------------------------------------------------- #
# positive random features
# --------------------------------------------------------------------------- #
X1, X2 = np.array([0.2, -0.1, 0.3]), np.array([0.1, 0.4, -0.2])
MEAN = math.exp(X1 @ X2)
VAR = math.exp(2 * X1 @ X2) * math.expm1(np.sum((X1 + X2) ** 2)) / 50


def test_prf_variance_closed_form_matches_monte_carlo():
    """Monte Carlo with w ~ N(0, I): the variance of one product, within 4 s.e."""
    W = np.random.default_rng(3).standard_normal((400_000, 3))
    prod = np.exp(-X1 @ X1 / 2 + W @ X1) * np.exp(-X2 @ X2 / 2 + W @ X2)
    se = np.std((prod - prod.mean()) ** 2) / math.sqrt(prod.size)
    assert abs(prod.var() - 50 * VAR) <= 4 * se
    assert abs(prod.mean() - MEAN) <= 4 * prod.std() / math.sqrt(prod.size)


@BOTH
def test_prf_accepts_closed_form(module, capsys):
    """Reference: the closed form (checked against Monte Carlo above)."""
    module.check_prf_variance(MEAN, VAR, X1, X2, 50)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("answer,match", [
    ((MEAN, VAR * 50), "divide by D"),
    ((MEAN, math.exp(2 * X1 @ X2) * math.exp(np.sum((X1 + X2) ** 2)) / 50),
     "subtract the squared mean"),
    ((math.exp(0.5 * np.sum((X1 + X2) ** 2)), VAR), "omits the factor"),
    ((MEAN * 1.01, VAR), "prf_mean is not"),
    ((MEAN, VAR * 2), "does not match"),
    ((MEAN, None), "is None"),
])
def test_prf_rejects_mistakes(module, answer, match):
    with pytest.raises(AssertionError, match=match) as err:
        module.check_prf_variance(*answer, X1, X2, 50)
    _no_number_leak(str(err.value), VAR)


# --------------------------------------------------------------------------- #
# Nystrom
# --------------------------------------------------------------------------- #
X40 = np.random.default_rng(9).standard_normal((40, 2))
ANCH = np.array([0, 5, 12, 12, 27, 33, 5])


def _nystroem_pinv(K, idx):
    """K_nm K_mm^+ K_nm^T with scipy's pinvh (repeated anchors make K_mm singular)."""
    C = K[:, idx]
    return C @ linalg.pinvh(C[idx]) @ C.T


@BOTH
def test_nystroem_accepts_pinv_and_features_route(module, capsys):
    """Second algorithm: features.Nystroem on the distinct anchors (same span)."""
    module.check_nystroem(_nystroem_pinv(kernels.gaussian(1.0)(X40), ANCH), X40, ANCH, 1.0)
    _passed(module, capsys)
    nys = features.Nystroem(kernel=kernels.gaussian(1.0), n_components=5,
                            random_state=0).fit(X40[np.unique(ANCH)])
    P = nys._gram(X40, nys.components_) @ nys.normalization_
    module.check_nystroem(P @ P.T, X40, ANCH, 1.0)
    _passed(module, capsys)


@BOTH
def test_nystroem_rejects_mistakes(module):
    K = kernels.gaussian(1.0)(X40)
    C = K[:, ANCH]
    with pytest.raises(AssertionError, match="anchor columns"):
        module.check_nystroem(C @ C.T, X40, ANCH, 1.0)               # forgot K_mm^+
    with pytest.raises(AssertionError, match="shape"):
        module.check_nystroem(C, X40, ANCH, 1.0)
    with pytest.raises(AssertionError, match="is None"):
        module.check_nystroem(None, X40, ANCH, 1.0)
    with pytest.raises(AssertionError, match="symmetric"):
        wrong = _nystroem_pinv(K, ANCH)
        wrong[30, 31] += 0.01
        module.check_nystroem(wrong, X40, ANCH, 1.0)
    wrong = _nystroem_pinv(K, ANCH).copy()
    rest = np.setdiff1d(np.arange(40), ANCH)
    wrong[np.ix_(rest, rest)] = K[np.ix_(rest, rest)] * 0.5 + wrong[np.ix_(rest, rest)] * 0.5
    with pytest.raises(AssertionError, match="1e-8"):
        module.check_nystroem(wrong, X40, ANCH, 1.0)


@BOTH
def test_nystroem_jitter_small_passes_large_is_diagnosed(module, capsys):
    """A jitter of 1e-8 is accepted; 1e-6 biases K_tilde and the message names the limit."""
    K = kernels.gaussian(1.0)(X40)
    C, W = K[:, ANCH], K[np.ix_(ANCH, ANCH)]
    module.check_nystroem(C @ linalg.solve(W + 1e-8 * np.eye(7), C.T), X40, ANCH, 1.0)
    _passed(module, capsys)
    with pytest.raises(AssertionError, match="1e-8"):
        module.check_nystroem(C @ linalg.solve(W + 1e-6 * np.eye(7), C.T), X40, ANCH, 1.0)


# --------------------------------------------------------------------------- #
# choosing D
# --------------------------------------------------------------------------- #
LOGT = math.log(2 * 1000**2 / 0.01)
D_OK = math.ceil(2 / 0.05**2 * LOGT)
EPS_OK = math.sqrt(2 * LOGT / 5000)
DPH_OK = math.ceil(8 / 0.05**2 * LOGT)


@BOTH
def test_choose_D_accepts_formula(module, capsys):
    """Reference: bisection on the inequality; here the closed form."""
    module.check_choose_D(D_OK, EPS_OK, DPH_OK, 1000, 0.05, 0.01, 5000)
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("answer,match", [
    ((2 / 0.05**2 * LOGT, EPS_OK, DPH_OK), "integer"),
    ((D_OK, 2 * EPS_OK, DPH_OK), "eps_guaranteed"),
    ((D_OK, EPS_OK * (1 + 1e-4), DPH_OK), "eps_guaranteed"),
    ((D_OK, EPS_OK, D_OK), "range over \\[-2, 2\\]"),
    ((None, EPS_OK, DPH_OK), "is None"),
])
def test_choose_D_rejects_mistakes(module, answer, match):
    with pytest.raises(AssertionError, match=match) as err:
        module.check_choose_D(*answer, 1000, 0.05, 0.01, 5000)
    assert str(D_OK) not in str(err.value) and str(DPH_OK) not in str(err.value)


@pytest.mark.parametrize("answer,match", [
    ((D_OK - 1, EPS_OK, DPH_OK), "round the bound up"),
    ((D_OK + 5, EPS_OK, DPH_OK), "too large"),
    ((D_OK // 2, EPS_OK, DPH_OK), "too small"),
    ((D_OK, EPS_OK, 2 * D_OK), "range 4"),
])
def test_choose_D_reference_names_the_direction(answer, match):
    """Only the full check (run when grading) says which way an integer is off; the
    self-check rejects these pairs as inconsistent, without a direction."""
    with pytest.raises(AssertionError, match=match):
        reference.check_choose_D(*answer, 1000, 0.05, 0.01, 5000)
    with pytest.raises(AssertionError) as err:
        ch09.check_choose_D(*answer, 1000, 0.05, 0.01, 5000)
    assert not any(w in str(err.value) for w in ("too large", "too small", "one too"))


def test_choose_D_reference_knows_the_n_pairs_mistake():
    with pytest.raises(AssertionError, match="n\\^2 pairs"):
        reference.check_choose_D(math.ceil(2 / 0.05**2 * math.log(2 * 1000 / 0.01)), EPS_OK,
                                 DPH_OK, 1000, 0.05, 0.01, 5000)


def test_choose_D_self_check_is_not_an_oracle(capsys):
    """Trying the integers one by one finds nothing: with D_phase = 4 D every D passes (the
    right one too), and for the right D_needed every D_phase of its rounding window passes."""
    tried = list(range(1, 20_001)) + [D_OK, DPH_OK]
    for d1 in tried:
        ch09.check_choose_D(d1, EPS_OK, 4 * d1, 1000, 0.05, 0.01, 5000)
    for d2 in range(4 * D_OK - 3, 4 * D_OK + 1):
        ch09.check_choose_D(D_OK, EPS_OK, d2, 1000, 0.05, 0.01, 5000)
    assert DPH_OK in range(4 * D_OK - 3, 4 * D_OK + 1)
    assert capsys.readouterr().out.count("Self-check passed:") == len(tried) + 4


def test_choose_D_reference_uses_the_sheets_values(capsys):
    """Other n, eps, delta in the call do not change what is graded."""
    reference.check_choose_D(D_OK, EPS_OK, DPH_OK, 10, 0.5, 0.5, 50)
    _passed(reference, capsys)


# --------------------------------------------------------------------------- #
# streaming ridge
# --------------------------------------------------------------------------- #
ARGS = dict(n=20_000, d=5, block_size=4000, seed=3, sigma=2.0, n_features=50, rff_seed=0, lam=1.0)


@pytest.fixture(scope="module")
def stream_data():
    blocks = list(ls.regression_blocks(20_000, 5, block_size=4000, seed=3))
    rff = features.RandomFourierFeatures(sigma=2.0, n_features=50, random_state=0).fit(blocks[0][0])
    return blocks, rff


@BOTH
def test_streaming_accepts_streaming_ridge_estimator(module, capsys):
    """Second algorithm: ls.StreamingRFFRidge (dsyrk accumulation); the reference uses an SVD."""
    model = ls.StreamingRFFRidge(2.0, 50, 1.0, seed=0).fit_blocks(
        ls.regression_blocks(20_000, 5, block_size=4000, seed=3))
    module.check_streaming_coef(model.coef_, **ARGS)
    _passed(module, capsys)


@BOTH
def test_streaming_rejects_mistakes(module, stream_data):
    blocks, rff = stream_data
    Z = np.vstack([rff.transform(b[0]) for b in blocks])
    y = np.concatenate([b[1] for b in blocks])
    last = ridge.ridge(rff.transform(blocks[-1][0]), blocks[-1][1], 1.0)
    with pytest.raises(AssertionError, match="last block only"):
        module.check_streaming_coef(last, **ARGS)
    with pytest.raises(AssertionError, match="n \\* lam"):
        module.check_streaming_coef(ridge.ridge(Z, y, 20_000.0), **ARGS)
    if module is ch09:                                  # the reference needs four SVDs here
        with pytest.raises(AssertionError, match="ignores the penalty"):
            module.check_streaming_coef(np.linalg.lstsq(Z, y, rcond=None)[0], **ARGS)
    G, b = np.zeros((100, 100)), np.zeros(100)          # new frequencies in every block
    for i, (Xb, yb) in enumerate(blocks):
        Zb = features.RandomFourierFeatures(sigma=2.0, n_features=50,
                                            random_state=i).fit_transform(Xb)
        G += Zb.T @ Zb
        b += Zb.T @ yb
    with pytest.raises(AssertionError, match="draw the frequencies once"):
        module.check_streaming_coef(np.linalg.solve(G + np.eye(100), b), **ARGS)
    with pytest.raises(AssertionError, match="is None"):
        module.check_streaming_coef(None, **ARGS)
    with pytest.raises(AssertionError, match="shape"):
        module.check_streaming_coef(np.zeros(50), **ARGS)


# --------------------------------------------------------------------------- #
# not positive definite
# --------------------------------------------------------------------------- #
def _epa_min(x):
    return np.linalg.eigvalsh(np.maximum(0, 1 - (x[:, None] - x[None, :]) ** 2))[0]


@BOTH
@pytest.mark.parametrize("x", [0.2 * np.arange(25), np.array([-0.45, 0.0, 0.45])])
def test_not_pd_accepts_counterexamples(module, x, capsys):
    """The sheet's grid and the three-point cluster of its part 3."""
    module.check_not_pd(x, _epa_min(x))
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("which,match", [
    ("spread", "below -1e-3"), ("wrong_eig", "smallest eigenvalue"), ("many", "between 2 and 30"),
    ("none", "is None"),
])
def test_not_pd_rejects_mistakes(module, which, match):
    x = 0.2 * np.arange(25)
    args = {"spread": (np.arange(5.0), 1.0), "wrong_eig": (x, 0.5 * _epa_min(x)),
            "many": (0.2 * np.arange(40), _epa_min(0.2 * np.arange(40))),
            "none": (x, None)}[which]
    with pytest.raises(AssertionError, match=match):
        module.check_not_pd(*args)


# --------------------------------------------------------------------------- #
# worst error over a domain
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def domain_err():
    """Cosines of the differences, with the grid built by linspace instead of arange."""
    w = np.random.default_rng(0).standard_normal(100)
    out = []
    for L in (1, 10, 100, 1000):
        d = np.linspace(0, L, int(round(L / 0.005)) + 1)
        out.append(np.max(np.abs(np.cos(np.outer(d, w)).mean(axis=1) - np.exp(-d**2 / 2))))
    return np.array(out)


@BOTH
def test_domain_error_accepts_answer(module, domain_err, capsys):
    module.check_domain_error(domain_err, [1, 10, 100, 1000])
    _passed(module, capsys)


@BOTH
@pytest.mark.parametrize("which", ["decreasing", "too_small", "none", "shape"])
def test_domain_error_rejects_mistakes(module, domain_err, which):
    e = domain_err
    ans = {"decreasing": e[::-1], "too_small": 0.5 * e, "none": None, "shape": e[:3]}[which]
    with pytest.raises(AssertionError):
        module.check_domain_error(ans, [1, 10, 100, 1000])


def test_domain_error_self_check_is_not_an_oracle(domain_err, capsys):
    """Larger values (up to 2, non-decreasing) pass the self-check; only the reference
    compares with the recomputed maximum."""
    ch09.check_domain_error(np.minimum(1.3 * domain_err, 2.0), [1, 10, 100, 1000])
    _passed(ch09, capsys)
    with pytest.raises(AssertionError):
        reference.check_domain_error(1.3 * domain_err, [1, 10, 100, 1000])


# --------------------------------------------------------------------------- #
# the notebook: solutions pass, None stubs fail every check
# --------------------------------------------------------------------------- #
def test_notebook_checks_pass_with_solutions_and_fail_with_none_stubs(capsys, monkeypatch):
    """Solution notebook: every self-check passes and, substituted as the grader does, every
    reference check; with None stubs every check fails, both ways (one execution each)."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch09, reference, 7, capsys,
                                                monkeypatch)
