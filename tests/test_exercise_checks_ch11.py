"""Tests for the chapter-11 checks: the self-checks that ship (kmlib.book.exercises.ch11) and
the lecturer's full checks (scripts/_grading/reference/ch11.py).

Both must accept the right answer, computed here by an independent route (E k(X, X') as a
Gaussian density of the difference of means with scipy.stats, kmlib's own ``KernelPCA``,
MMD^2 from scipy's normal densities maximised by Brent's method, kmlib's ``hsic`` for the
statistic and every permuted sample), accept it in another valid form (other signs, lists),
and reject ``None``. The full check must reject typical wrong answers with a diagnosing
message that does not contain the reference value; the self-check those its properties can
tell (range, centring, orthogonality, order, the form of a p-value, the hashes of the
sheet's answers). The last test runs the exercise notebook with solutions (self-checks, then
the full checks in their place as when grading) and with ``None`` stubs.
"""
from __future__ import annotations

import re
from pathlib import Path

import _exercise_cells as notebook
import numpy as np
import pytest
from _exercise_cells import self_and_full
from _grading.reference import ch11 as ref
from scipy import optimize, stats

from kmlib import kernels
from kmlib.book.exercises import ch11
from kmlib.unsupervised import KernelPCA, hsic

pytestmark = pytest.mark.filterwarnings("error")

NOTEBOOK = Path(__file__).resolve().parents[1] / "exercises" / "11_mean_embeddings.md"


_both, _rejected = self_and_full(ch11, ref)


def _no_leak(message: str, value: float) -> None:
    """The message must not print the reference value (to 3 significant digits)."""
    for num in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", message):
        assert not np.isclose(float(num), value, rtol=1e-3), f"{message!r} leaks {value}"


# --------------------------------------------------------------------------- #
# MMD between two Gaussian distributions
# --------------------------------------------------------------------------- #
def _ek_density(ma, sa, mb, sb, sigma, d=3):
    """E k(X, X') = (2 pi sigma^2)^{d/2} times the N(0, (sigma^2 + sa^2 + sb^2) I) density at
    ma - mb: k(x, .) is a scaled normal density, and X - X' is normal."""
    cov = (sigma**2 + sa**2 + sb**2) * np.eye(d)
    return (2 * np.pi * sigma**2) ** (d / 2) * stats.multivariate_normal(np.zeros(d), cov).pdf(
        np.asarray(ma) - np.asarray(mb))


@pytest.fixture(scope="module")
def gaussian_mmd():
    m_p, s_p, m_q, s_q, sigma = ch11.gaussian_mmd_data()
    terms = (_ek_density(m_p, s_p, m_p, s_p, sigma), _ek_density(m_q, s_q, m_q, s_q, sigma),
             _ek_density(m_p, s_p, m_q, s_q, sigma))
    return terms, terms[0] + terms[1] - 2 * terms[2]


def test_check_gaussian_mmd_accepts_the_density_route(gaussian_mmd, capsys):
    _, value = gaussian_mmd
    _both(capsys, lambda m: m.check_gaussian_mmd(value))
    _both(capsys, lambda m: m.check_gaussian_mmd(np.array([value])))


def test_check_gaussian_mmd_rejects_mistakes(gaussian_mmd):
    terms, value = gaussian_mmd
    m_p, s_p, m_q, s_q, sigma = ch11.gaussian_mmd_data()

    def power_half(ma, sa, mb, sb):                 # the prefactor of d = 1, used in d = 3
        v = sigma**2 + sa**2 + sb**2
        return np.sqrt(sigma**2 / v) * np.exp(-np.sum((ma - mb) ** 2) / (2 * v))

    one_d = (power_half(m_p, s_p, m_p, s_p) + power_half(m_q, s_q, m_q, s_q)
             - 2 * power_half(m_p, s_p, m_q, s_q))
    for wrong, full, self_match in [
            (one_d, "power d/2", "not recognised"),
            (terms[0] + terms[1] - terms[2], "twice", "not recognised"),
            (np.sqrt(value), "square", "not recognised"),
            (-value, "not E k", "negative"), (2.5, "not E k", "at most 2"),
            (None, "None", "None")]:
        for message in _rejected(lambda m, w=wrong: m.check_gaussian_mmd(w), full, self_match):
            _no_leak(message, value)


# --------------------------------------------------------------------------- #
# kernel PCA by hand
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def kpca():
    """Reference: kmlib's KernelPCA (the full check uses scikit-learn's)."""
    X, X_new, sigma = ch11.kpca_data()
    model = KernelPCA(2, kernel=kernels.gaussian(sigma)).fit(X)
    return model.transform(X), model.transform(X_new), model.eigenvalues_


def test_check_kpca_accepts_any_signs(kpca, capsys):
    Zt, Zn, _ = kpca
    _both(capsys, lambda m: m.check_kpca(Zt, Zn))
    flip = np.array([-1.0, 1.0])
    _both(capsys, lambda m: m.check_kpca((Zt * flip).tolist(), Zn * flip))


def test_check_kpca_rejects_mistakes(kpca):
    Zt, Zn, nu = kpca
    X, X_new, sigma = ch11.kpca_data()
    K = kernels.gaussian(sigma)(X)
    ev, vec = np.linalg.eigh(K)
    uncentred = vec[:, ::-1][:, :2] * np.sqrt(ev[::-1][:2])
    n = len(X)
    raw_new = kernels.gaussian(sigma)(X_new, X) @ (Zt / nu)
    for args, full, self_match in [
            ((uncentred, Zn), "UNCENTRED", "average to zero"),
            ((Zt / np.sqrt(nu), Zn), "unit eigenvectors", "norm 1"),
            ((Zt / np.sqrt(n), Zn), "factor", "nu_l / n"),
            ((Zt * np.sqrt(n), Zn), "factor", "n nu_l"),
            ((Zt[:, ::-1], Zn[:, ::-1]), "wrong order", "decreasing"),
            ((Zt, raw_new), "raw kernel vectors", "TRAINING means"),
            ((Zt, Zn * np.array([1.0, -1.0])), "opposite sign", "opposite sign"),
            ((Zt * np.array([-1.0, 1.0]), Zn), "opposite sign", "opposite sign"),
            ((Zt[:30], Zn), "shape", "shape"),
            ((None, Zn), "None", "None")]:
        _rejected(lambda m, args=args: m.check_kpca(*args), full, self_match)


# --------------------------------------------------------------------------- #
# the width that maximises MMD
# --------------------------------------------------------------------------- #
def _mmd2_density(s, a):
    """MMD^2(N(0,1), Q_a) from normal densities: E k = sqrt(2 pi) s N(0, s^2 + v) pdf at dm."""
    b2 = 1 - a * a
    ek = lambda dm, v: np.sqrt(2 * np.pi) * s * stats.norm.pdf(dm, scale=np.sqrt(s**2 + v))  # noqa: E731
    qq = (ek(0, 2 * b2) + ek(2 * a, 2 * b2)) / 2
    return ek(0, 2) + qq - 2 * ek(a, 1 + b2)


@pytest.fixture(scope="module")
def width():
    a, lo, hi = ch11.width_data()
    r = optimize.minimize_scalar(lambda s: -_mmd2_density(s, a), bracket=(0.2, 0.4, 1.0),
                                 method="brent", tol=1e-12)
    assert lo < r.x < hi
    return r.x, -r.fun


def test_check_width_accepts_brent(width, capsys):
    s, v = width
    _both(capsys, lambda m: m.check_width(s, v))


def test_check_width_rejects_mistakes(width):
    s, v = width
    r09 = optimize.minimize_scalar(lambda t: -_mmd2_density(t, 0.9), bracket=(0.2, 0.4, 1.0),
                                   method="brent", tol=1e-12)
    for args, full, self_match in [
            ((r09.x, -r09.fun), "a = 0.9", "not recognised"),
            ((s, np.sqrt(v)), "its square", "not recognised"),
            ((s * 1.002, v), "not accurate", None),  # graded only
            ((3.5, v), "interval", "interval"), ((s, v * 3), "do not maximise", "not recognised"),
            ((None, v), "None", "None")]:
        for message in _rejected(lambda m, args=args: m.check_width(*args), full, self_match):
            _no_leak(message, v)
            _no_leak(message, s)


# --------------------------------------------------------------------------- #
# HSIC and its permutation test
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def hsic_answer():
    """Reference: kmlib's hsic on the data and on every permuted sample."""
    x, y, perms, sx, sy = ch11.hsic_data()
    kx, ky = kernels.gaussian(sx), kernels.gaussian(sy)
    stat = hsic(x, y, kernel_x=kx, kernel_y=ky)
    null = np.array([hsic(x, y[p], kernel_x=kx, kernel_y=ky) for p in perms])
    return stat, null, (1 + np.sum(null >= stat)) / (len(perms) + 1)


def test_check_hsic_accepts_the_library_route(hsic_answer, capsys):
    stat, null, p = hsic_answer
    _both(capsys, lambda m: m.check_hsic_test(stat, null, p))
    _both(capsys, lambda m: m.check_hsic_test(np.float64(stat), list(null), float(p)))


def test_check_hsic_rejects_mistakes(hsic_answer):
    stat, null, p = hsic_answer
    x, y, perms, sx, sy = ch11.hsic_data()
    n, B = len(x), len(perms)
    uncentred = float(np.sum(kernels.gaussian(sx)(x) * kernels.gaussian(sy)(y))) / n**2
    kx, ky = kernels.gaussian(sx), kernels.gaussian(sy)
    both_permuted = np.full(B, stat)                       # permuting x and y together
    for args, full, self_match in [
            ((stat * n**2 / (n - 1) ** 2, null * n**2 / (n - 1) ** 2, p), "\\(n - 1\\)\\^2",
             "\\(n - 1\\)\\^2"),
            ((uncentred, null, 1 / (B + 1)), "uncentred", "not recognised"),
            ((stat, null, np.sum(null >= stat) / B), "counts the observed", "not \\(1 \\+"),
            ((stat, null, (1 + np.sum(null <= stat)) / (B + 1)), "AT LEAST", "not \\(1 \\+"),
            ((stat, both_permuted, 1.0), "null_hsic is not", "null_hsic is not"),
            ((stat, null[::-1], p), "null_hsic is not", None),   # same p: the order is immaterial
            ((stat, np.zeros(B), 1 / (B + 1)), "null_hsic is not", "null_hsic is not"),
            ((stat, null * n**2, (1 + np.sum(null * n**2 >= stat)) / (B + 1)), "null_hsic is not",
             "null_hsic is not"),
            ((-stat, null, p), "not tr", "negative"),
            ((None, null, p), "None", "None"), ((stat, None, p), "None", "None"),
            ((stat, null, None), "None", "None")]:
        for message in _rejected(lambda m, args=args: m.check_hsic_test(*args), full, self_match):
            _no_leak(message, stat)
    # the reference's null values are kmlib's, computed here independently of both checkers
    assert np.allclose(null, [hsic(x, y[q], kernel_x=kx, kernel_y=ky) for q in perms[:3]] +
                       list(null[3:]), rtol=1e-12)


def test_p_value_self_check_is_not_an_oracle(hsic_answer):
    """Brute force: the p-value takes only B + 1 = 200 values, so the self-check must not
    recognise it on its own. With any null vector other than the right one, no candidate
    p passes; with the right statistic and null vector (the work of the exercise), exactly
    the p-value that follows from them passes."""
    stat, null, p = hsic_answer
    B = len(null)
    candidates = [(1 + c) / (B + 1) for c in range(B + 1)]
    for junk in (np.zeros(B), np.full(B, 1.5 * stat), np.linspace(0, 2 * stat, B), null * 1.01):
        for q in candidates:
            with pytest.raises(AssertionError):
                ch11.check_hsic_test(stat, junk, q)
    passing = []
    for q in candidates:
        try:
            ch11.check_hsic_test(stat, null, q)
        except AssertionError:
            continue
        passing.append(q)
    assert passing == [pytest.approx(p)]


# --------------------------------------------------------------------------- #
# energy distance and the anchored kernel
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def energy_answer():
    """Reference: scipy-free double sums for the energy distance; kmlib's V-statistic with the
    anchored kernel of the Euclidean distance, anchored at the last point of y."""
    x, y = ch11.energy_data()
    d = lambda a, b: np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)  # noqa: E731
    e = 2 * d(x, y).mean() - d(x, x).mean() - d(y, y).mean()
    x0 = y[-1:]
    def anchored(a, b=None):
        b = a if b is None else b
        return d(a, x0) + d(b, x0).T - d(a, b)

    from kmlib.unsupervised import mmd2
    v = mmd2(x, y, kernel=anchored)
    return e, v


def test_energy_identity_holds(energy_answer):
    e, v = energy_answer
    assert np.isclose(e, v, rtol=1e-10) and e > 0


def test_check_energy_accepts_the_answer(energy_answer, capsys):
    e, v = energy_answer
    _both(capsys, lambda m: m.check_energy(e, v))


def test_check_energy_rejects_mistakes(energy_answer):
    e, v = energy_answer
    x, y = ch11.energy_data()
    d = lambda a, b: np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)  # noqa: E731
    offdiag = lambda D: (D.sum() - np.trace(D)) / (len(D) * (len(D) - 1))    # noqa: E731
    no_diag = 2 * d(x, y).mean() - offdiag(d(x, x)) - offdiag(d(y, y))
    for args, full, self_match in [
            ((e / 2, v / 2), "half", "not recognised"),
            ((no_diag, no_diag), "not the sample energy", "not recognised"),
            ((e, v * 1.01), "mmd2_anchor", "differ"),
            ((-e, -v), "not the sample energy", "negative"),
            ((None, v), "None", "None")]:
        for message in _rejected(lambda m, args=args: m.check_energy(*args), full, self_match):
            _no_leak(message, e)


# --------------------------------------------------------------------------- #
# a McDiarmid test
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def mcd_answer():
    """Reference: the closed-form threshold; kmlib's unbiased mmd2."""
    from kmlib.unsupervised import mmd2
    x, y = ch11.mcd_data()
    return np.sqrt(16 * np.log(20) / 100), mmd2(x, y, kernel=kernels.gaussian(1.0), unbiased=True)


def test_check_mcdiarmid_accepts_the_answer(mcd_answer, capsys):
    _both(capsys, lambda m: m.check_mcdiarmid(*mcd_answer))


def test_check_mcdiarmid_rejects_mistakes(mcd_answer):
    e, u = mcd_answer
    from kmlib.unsupervised import mmd2
    x, y = ch11.mcd_data()
    v = mmd2(x, y, kernel=kernels.gaussian(1.0))
    for args, full, self_match in [
            ((e, v), "u_stat", "not recognised"),             # the biased statistic
            ((e / 2, u), "half", None),          # the threshold's value is left to the full check
            ((-e, u), "eps_mcd", "positive"),
            ((e, None), "None", "None")]:
        for message in _rejected(lambda m, args=args: m.check_mcdiarmid(*args), full, self_match):
            _no_leak(message, u)
            _no_leak(message, e)


# --------------------------------------------------------------------------- #
# the notebook
# --------------------------------------------------------------------------- #
def test_the_self_checks_hashes_are_the_sheets_answers(gaussian_mmd, kpca, width, hsic_answer):
    """Each digest in ch11 recognises the answer computed here by an independent route."""
    assert ch11._known(gaussian_mmd[1], "mmd2_ab")
    Zt, Zn, nu = kpca
    assert all(ch11._known(v, f"Z_train:nu{i}") for i, v in enumerate(nu))
    assert all(ch11._known(v, f"Z_new:col{i}") for i, v in enumerate(np.sum(Zn**2, axis=0)))
    assert ch11._known(width[1], "mmd2_best")
    assert "sigma_best" not in ch11.DIGESTS        # four digits in (0.05, 3): never a digest
    assert ch11._known(hsic_answer[0], "hsic_stat")
    assert ch11._known(float(np.sum(hsic_answer[1])), "null_hsic:sum")
    assert ch11._known(float(np.max(hsic_answer[1])), "null_hsic:max")
    assert "p_value" not in ch11.DIGESTS                   # 200 candidates: never a digest


def test_hsic_null_values_are_well_separated_from_the_statistic(hsic_answer):
    """The p-value does not hinge on rounding: no permuted value within 1e-6 of the statistic."""
    stat, null, _ = hsic_answer
    assert np.min(np.abs(null - stat)) > 1e-6 * stat


def test_notebook_passes_self_checks_and_full_checks_and_stubs_fail(capsys, monkeypatch):
    """Solution notebook: every check passes, the self-checks and then, in their place as
    when grading, the full checks. Student stubs (None): every check fails."""
    notebook.assert_sheet_passes_self_then_full(NOTEBOOK, ch11, ref, 6, capsys, monkeypatch)
