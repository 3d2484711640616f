"""Graded tests of Task 1.5 (``lab01.gate``): ``quantize.accuracy_gate``, the INT8 accuracy gate's rule.

Through the public contract only (the docstring of ``lab01_onnx.quantize.accuracy_gate``). Every case is
built so that its answer is known by construction, not by running a second implementation: reference
logits with a clear top-1 token at every position (a gap of at least 1 to the runner-up, no ties), a
candidate that is the reference plus noise smaller than half that gap (same top-1 everywhere), and
then chosen positions *flipped* (another token raised above the top-1) or spoiled (a NaN or an inf
logit). The number of disagreements is then the number of flipped or spoiled positions that the mask
keeps. Agreements are compared exactly where the fraction is a dyadic number (any formula gives the
same float), else to 1e-12; ``max_abs`` against NumPy's float64 difference to ``MAX_ABS_REL`` relative (the
contract names no precision: a subtraction of the float32 logits in float32 rounds its result once, by at most
2^-24 of it; float64 is exact).

Every result is checked for its type before any field of it is compared (:func:`gate`): an
``AccuracyGate`` (exactly) whose fields are plain numbers (``float``/``int``/``bool``, or NumPy's scalars
of those kinds), ``first_disagreement`` a tuple of them or None. An object of another type may define
its own ``==`` (equal to anything) and would pass every comparison below without computing a thing.
The check is on the kind, not the precision: a ``float`` field may be an ``int`` (PEP 484's numeric tower:
``min_top1`` passed through as the caller's ``1``) or NumPy's ``float32`` (``max_abs`` as
``np.abs(candidate - reference).max()`` of float32 logits, which ``MAX_ABS_REL`` allows for).

Run: ``.venv/bin/python -m pytest --task lab01.gate``.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from common.errors import UserError
from lab01_onnx.quantize import AccuracyGate, accuracy_gate

pytestmark = pytest.mark.lab01

# Exact types whose ``==`` is the number's own (a subclass could redefine it): the docstring's float,
# int and bool, and NumPy's scalars of the same kind (what ``mean``/``sum``/``max``/``>=`` on arrays give,
# float32 logits included). An int is a valid float (PEP 484's numeric tower), a bool is not a count.
INTS = (int, np.int32, np.int64)
FLOATS = (float, np.float32, np.float64) + INTS
FIELD_TYPES = {"agreement": FLOATS, "positions": INTS, "disagreements": INTS,
               "max_abs": FLOATS, "min_top1": FLOATS, "passed": (bool, np.bool_)}


#: ``max_abs`` in float32 or float64: one rounding of the float32 difference, 2^-24 relative, with a factor 2 margin
MAX_ABS_REL = 2.0 ** -23


def gate(reference: np.ndarray, candidate: np.ndarray, **kw) -> AccuracyGate:
    """``accuracy_gate(reference, candidate, **kw)``, its result's type and its fields' types checked first."""
    g = accuracy_gate(reference, candidate, **kw)
    assert type(g) is AccuracyGate, f"accuracy_gate returned an object of type {type(g).__qualname__}, not an AccuracyGate"
    wrong = {name: type(getattr(g, name)).__qualname__ for name, types in FIELD_TYPES.items()
             if type(getattr(g, name)) not in types}
    first = g.first_disagreement
    if first is not None and not (type(first) is tuple and all(type(i) in INTS for i in first)):
        wrong["first_disagreement"] = f"{type(first).__qualname__} {first!r}"
    assert not wrong, (f"AccuracyGate fields of the wrong type: {wrong} (agreement, max_abs, min_top1: float; "
                       "positions, disagreements: int; passed: bool; first_disagreement: a tuple of int or None)")
    return g


def logits(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Float32 logits ``shape`` (last axis: vocabulary) whose top-1 leads the runner-up by >= 1."""
    rng = np.random.default_rng(seed)
    out = rng.standard_normal(shape).astype(np.float32)
    top = rng.integers(0, shape[-1], size=shape[:-1])
    np.put_along_axis(out, top[..., None], out.max(-1, keepdims=True) + 1.0 + rng.random(shape[:-1] + (1,)), -1)
    return out.astype(np.float32)


def close(ref: np.ndarray, seed: int, scale: float = 0.4) -> np.ndarray:
    """The reference plus noise in (-scale, scale): below half the top-1 gap, so the top-1 stays."""
    noise = np.random.default_rng(seed).uniform(-scale, scale, ref.shape)
    return (ref + noise).astype(np.float32)


def flip(cand: np.ndarray, ref: np.ndarray, positions) -> np.ndarray:
    """At each position (a leading index) raise a token other than the reference's top-1 above it."""
    out = cand.copy()
    for p in positions:
        top = int(ref[p].argmax())
        other = (top + 1) % ref.shape[-1]
        out[p + (other,)] = ref[p].max() + 5.0
    return out


@pytest.mark.task("lab01.gate", points=1)
def test_agreement_counts_and_the_first_disagreement():
    ref = logits((4, 6, 10), seed=0)
    cand = close(ref, seed=1)
    g = gate(ref, cand, min_top1=0.9)
    assert (g.agreement, g.positions, g.disagreements, g.first_disagreement, g.passed) == (1.0, 24, 0, None, True)
    assert g.max_abs == pytest.approx(float(np.abs(cand.astype(np.float64) - ref).max()), rel=MAX_ABS_REL)
    bad = flip(cand, ref, [(3, 5), (1, 2), (2, 0)])
    g = gate(ref, bad, min_top1=0.9)
    assert (g.positions, g.disagreements, g.first_disagreement) == (24, 3, (1, 2))  # C order: (1, 2) first
    assert g.agreement == pytest.approx(21 / 24, abs=1e-12) and not g.passed      # 0.875 < 0.9
    assert g.max_abs == pytest.approx(float(np.abs(bad.astype(np.float64) - ref).max()), rel=MAX_ABS_REL)
    assert g.min_top1 == 0.9
    # the difference is absolute: a candidate logit 10 below its reference (a token other than the top) is the max
    low = cand.copy()
    low[2, 3, (int(ref[2, 3].argmax()) + 1) % 10] -= 10.0
    g = gate(ref, low, min_top1=0.9)
    assert (g.disagreements, g.first_disagreement) == (0, None)
    assert g.max_abs == pytest.approx(float(np.abs(low.astype(np.float64) - ref).max()), rel=MAX_ABS_REL)
    assert g.max_abs > 9.5
    # finite logits near float32's largest are finite: a row sum overflows to inf, every logit is still finite
    big = (2e38 + ref.astype(np.float64) * 1e36).astype(np.float32)          # top gap >= 1e36, all ~2e38
    near = (big + (cand.astype(np.float64) - ref) * 1e36).astype(np.float32)  # differences < 0.4e36: same top-1
    assert np.isfinite(near).all() and (near.argmax(-1) == big.argmax(-1)).all()  # the oracle: NumPy on both
    g = gate(big, near, min_top1=0.9)
    assert (g.positions, g.disagreements, g.first_disagreement, g.passed) == (24, 0, None, True)
    assert g.max_abs == pytest.approx(float(np.abs(near.astype(np.float64) - big).max()), rel=MAX_ABS_REL)
    # the docstring's logits are float, float64 included: the top-1 and the differences are the float64 values'
    # (a float32 copy ties 16 - 1e-9 with 16 and rounds a 1e-6 difference near 1000 to 0 or 6.1e-5)
    ref = logits((5, 6), seed=31).astype(np.float64)
    tops = ref.argmax(-1)
    ref[np.arange(5), tops] = 16.0                      # every other logit is below 16 - 1 (the top-1 gap)
    rows = [p for p in range(5) if tops[p] > 0]
    for p in rows:
        ref[p, 0] = 16.0 - 1e-9                          # runner-up at token 0, 1e-9 below: top-1 stays tops[p]
    assert rows and (ref.argmax(-1) == tops).all() and (ref.astype(np.float32).argmax(-1) != tops).sum() == len(rows)
    cand = ref.copy()
    cand[rows, 0] = 15.0                                 # the candidate's runner-up is clearly below
    g = gate(ref, cand, min_top1=1.0)
    assert (g.positions, g.disagreements, g.first_disagreement, g.passed) == (5, 0, None, True)
    base = logits((4, 3, 8), seed=32).astype(np.float64) + 1000.0
    near = base + np.random.default_rng(33).uniform(-1e-6, 1e-6, base.shape)
    g = gate(base, near, min_top1=1.0)
    # float64 differences are exact to one rounding (2^-53 relative): MAX_ABS_REL is ample, a float32 copy is not
    assert g.disagreements == 0 and g.max_abs == pytest.approx(float(np.abs(near - base).max()), rel=MAX_ABS_REL)


@pytest.mark.task("lab01.gate", points=2)
@given(shape=st.sampled_from([(7, 5), (2, 3, 4), (1, 1, 2), (3, 2, 2, 6)]), seed=st.integers(0, 2**16),
       data=st.data())
def test_property_disagreements_are_the_flipped_positions(shape, seed, data):
    ref = logits(shape, seed)
    lead = shape[:-1]
    every = [tuple(int(i) for i in np.unravel_index(k, lead)) for k in range(int(np.prod(lead)))]
    flipped = data.draw(st.sets(st.sampled_from(every)), label="flipped")
    min_top1 = data.draw(st.floats(0.0, 1.0), label="min_top1")
    g = gate(ref, flip(close(ref, seed + 1), ref, flipped), min_top1=min_top1)
    n, k = len(every), len(flipped)
    assert (g.positions, g.disagreements) == (n, k)
    assert g.first_disagreement == (min(flipped) if flipped else None)
    assert g.agreement == pytest.approx((n - k) / n, abs=1e-12)
    if abs((n - k) / n - min_top1) > 1e-9:  # away from the boundary (its own test below): any formula decides alike
        assert g.passed == ((n - k) / n >= min_top1)


@pytest.mark.task("lab01.gate", points=1)
def test_the_threshold_is_inclusive():
    ref = logits((8, 5), seed=3)
    two = flip(close(ref, 4), ref, [(1,), (6,)])            # 6 of 8 agree: 0.75, exact in binary
    assert gate(ref, two, min_top1=0.75).passed
    assert not gate(ref, flip(two, ref, [(0,)]), min_top1=0.75).passed   # 5 of 8
    assert gate(ref, two, min_top1=0.0).passed and not gate(ref, two, min_top1=1.0).passed


@pytest.mark.task("lab01.gate", points=1)
@pytest.mark.parametrize("dtype", [bool, np.int64, np.float32])
def test_masked_positions_do_not_count(dtype):
    ref = logits((2, 5, 7), seed=5)
    bad = flip(close(ref, 6), ref, [(0, 4), (1, 3), (1, 4)])
    bad[0, 4, 0] = np.nan                                    # a NaN in padding: not a kept position's logit
    mask = np.ones((2, 5), dtype=dtype)
    mask[0, 4] = mask[1, 4] = 0                              # padding at the end of both rows
    mask[1, 0] = 2                                           # any nonzero keeps a position (True for bool)
    g = gate(ref, bad, min_top1=0.9, mask=mask)
    assert (g.positions, g.disagreements, g.first_disagreement) == (8, 1, (1, 3))
    assert g.agreement == 7 / 8 and not g.passed
    # the flipped padding is out of max_abs too: only the kept positions' differences count
    kept = np.abs(bad.astype(np.float64) - ref)[mask.astype(bool)]
    assert g.max_abs == pytest.approx(float(kept.max()), rel=MAX_ABS_REL)


@pytest.mark.task("lab01.gate", points=1)
@pytest.mark.parametrize("spoil, at_top", [(np.nan, True), (np.inf, True), (-np.inf, False)])
def test_a_non_finite_candidate_logit_never_agrees(spoil, at_top):
    ref = logits((3, 6), seed=7)
    cand = close(ref, 8)
    top = int(ref[1].argmax())
    # at the top token argmax may still point at the right one; -inf elsewhere leaves the row's max and argmax alone
    cand[1, top if at_top else (top + 1) % 6] = spoil
    g = gate(ref, cand, min_top1=0.5)
    assert (g.disagreements, g.first_disagreement, g.max_abs) == (1, (1,), float("inf"))
    assert g.agreement == pytest.approx(2 / 3, abs=1e-12) and g.passed
    # every token is checked, the first and the last included: row 0's top token is token 0, row 2's is token 5
    # (sorted rows keep the top-1 gap), spoiled at the top (NaN, inf) or at the other end (-inf)
    ends = ref.copy()
    ends[0], ends[2] = np.sort(ref[0])[::-1], np.sort(ref[2])
    spoilt = close(ends, 8)
    spoilt[0, 0 if at_top else 5], spoilt[2, 5 if at_top else 0] = spoil, spoil
    g = gate(ends, spoilt, min_top1=0.5)
    assert (g.disagreements, g.first_disagreement, g.max_abs, g.passed) == (2, (0,), float("inf"), False)
    # a whole row spoilt (a broken kernel's output) disagrees too, and is no error
    row = close(ref, 8)
    row[2] = spoil
    g = gate(ref, row, min_top1=0.5)
    assert (g.disagreements, g.first_disagreement, g.max_abs) == (1, (2,), float("inf"))


@pytest.mark.task("lab01.gate", points=1)
def test_bad_input_is_a_one_line_user_error():
    ref = logits((2, 3, 4), seed=9)
    nan_ref = ref.copy()
    nan_ref[0, 0, 0] = np.nan
    inf_ref, ninf_ref, padded_nan_ref = ref.copy(), ref.copy(), ref.copy()
    inf_ref[1, 2, 3], ninf_ref[0, 1, 2] = np.inf, -np.inf   # not finite either: NaN is not the only bad value
    padded_nan_ref[1, 2, 0] = np.nan                         # in a position the mask below drops
    padding = np.ones((2, 3))
    padding[1, 2] = 0
    cases = [
        (ref, ref[:, :2], {}),                               # shapes differ
        (ref, ref[:1], {}), (ref[:1], ref, {}),              # broadcastable is not the same shape either
        (ref, ref[..., :1], {}), (ref, ref[..., :3], {}),    # another vocabulary, the leading shapes equal
        (ref, ref.reshape(3, 2, 4), {}), (ref, ref.reshape(6, 4), {}),  # as many logits, another shape
        (ref, ref, {"mask": np.ones((2, 4))}),               # mask is not the leading shape (2, 3)
        (ref, ref, {"mask": np.zeros((2, 3))}),              # nothing to count
        (ref, ref, {"mask": np.ones(3)}), (ref, ref, {"mask": np.ones((1, 3))}),  # broadcastable is not the shape
        (ref, ref, {"mask": np.ones(6)}), (ref, ref, {"mask": np.ones((3, 2))}),  # as many values is not the shape
        (ref, ref, {"mask": np.ones((1, 2, 3))}),
        (ref, ref, {"min_top1": 1.5}), (ref, ref, {"min_top1": -0.1}),
        (ref, ref, {"min_top1": float("nan")}),             # not in [0, 1] either: every verdict would fail
        (nan_ref, ref, {}),                                  # a reference that is not finite
        (inf_ref, ref, {}), (ninf_ref, ref, {}),             # inf and -inf are not finite
        (padded_nan_ref, ref, {"mask": padding}),            # any reference logit, padding included (the docstring)
        (np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32), {}),  # no position at all, and no mask
        (np.zeros((3, 0), np.float32), np.zeros((3, 0), np.float32), {}),  # no vocabulary
        (np.float32(1), np.float32(1), {}),                  # a 0-d array: no vocabulary axis at all
    ]
    for r, c, kw in cases:
        with pytest.raises(UserError) as err:
            accuracy_gate(r, c, **{"min_top1": 0.5, **kw})
        assert "\n" not in str(err.value), kw


@pytest.mark.task("lab01.gate", points=1)
def test_a_tie_at_the_top_takes_the_first_maximal_index():
    """The docstring: top-1 is the first maximal index on ties (NumPy's ``argmax``); int8 logits tie often. A
    candidate whose token 0 ties with the reference's top token answers token 0: a disagreement; a reference whose
    token 0 ties with its top token answers token 0, and a candidate answering the other tied token disagrees."""
    ref = logits((4, 6), seed=21)
    cand = close(ref, 22)
    tops = ref.argmax(-1)
    tied = [p for p in range(4) if tops[p] > 0][:2]      # positions whose top token has a lower index to tie with
    for p in tied:
        cand[p, 0] = cand[p, tops[p]]
    assert tied and (cand.argmax(-1) != tops).sum() == len(tied)  # the oracle: NumPy's first maximal index
    g = gate(ref, cand, min_top1=0.5)
    assert (g.disagreements, g.first_disagreement) == (len(tied), (tied[0],))
    # and a tie in the reference: its top-1 is its first maximal index too, so a candidate that answers the later of
    # two tied reference tokens disagrees (it picked a token the reference's argmax did not)
    ref_tied, cand = ref.copy(), close(ref, 22)
    for p in tied:
        ref_tied[p, 0] = ref_tied[p, tops[p]]                # token 0 ties with the top token: argmax says 0
    assert (ref_tied.argmax(-1) != cand.argmax(-1)).sum() == len(tied)  # the oracle: NumPy's argmax on both sides
    g = gate(ref_tied, cand, min_top1=0.5)
    assert (g.disagreements, g.first_disagreement) == (len(tied), (tied[0],))


@pytest.mark.task("lab01.gate", points=1)
def test_a_negative_mask_value_counts():
    """The docstring: a mask value is non-zero = counted; -1 is non-zero."""
    ref = logits((2, 4, 5), seed=23)
    bad = flip(close(ref, 24), ref, [(1, 2)])
    mask = np.ones((2, 4), np.int64)
    mask[1, 2] = -1
    g = gate(ref, bad, min_top1=0.9, mask=mask)
    assert (g.positions, g.disagreements, g.first_disagreement) == (8, 1, (1, 2))


@pytest.mark.task("lab01.gate", points=1)
def test_one_dimensional_logits_are_one_position():
    """Logits of shape ``[V]``: the leading shape is ``()``, one position whose index is ``()``; only an array with
    no axis is refused. ``min_top1`` may be given as the int 1 (an int is a valid float) and comes back equal to it."""
    ref = logits((1, 7), seed=25)[0]
    g = gate(ref, close(ref, 26), min_top1=1)
    assert (g.positions, g.disagreements, g.first_disagreement, g.passed, g.min_top1) == (1, 0, None, True, 1)
    g = gate(ref, flip(close(ref, 26)[None], ref[None], [(0,)])[0], min_top1=0)
    assert (g.positions, g.disagreements, g.first_disagreement, g.passed) == (1, 1, (), True)
    # a vocabulary of one token (V >= 1): every finite position agrees, a NaN one does not
    one = logits((3, 1), seed=27)
    cand = close(one, 28)
    g = gate(one, cand, min_top1=1.0)
    assert (g.positions, g.disagreements, g.first_disagreement, g.passed) == (3, 0, None, True)
    cand[1, 0] = np.nan
    g = gate(one, cand, min_top1=0.5)
    assert (g.positions, g.disagreements, g.first_disagreement, g.max_abs) == (3, 1, (1,), float("inf"))


@pytest.mark.task("lab01.gate", points=1)
def test_a_fractional_mask_value_counts():
    """A float mask is kept where it is non-zero (the docstring), 0.5 and 1e-3 included: NumPy's ``mask != 0`` is
    the oracle; truncating the mask to an integer drops those positions."""
    ref = logits((2, 4, 6), seed=27)
    bad = flip(close(ref, 28), ref, [(0, 1), (1, 3)])
    mask = np.array([[1.0, 0.5, 1.0, 0.0], [1.0, 1.0, 0.0, 1e-3]], np.float32)
    g = gate(ref, bad, min_top1=0.5, mask=mask)
    assert (g.positions, g.disagreements, g.first_disagreement) == (int((mask != 0).sum()), 2, (0, 1)) == (6, 2, (0, 1))
    assert g.agreement == pytest.approx(4 / 6, abs=1e-12)
    # a float64 mask keeps 1e-300 too (non-zero; a float32 copy of it is 0)
    tiny = mask.astype(np.float64)
    tiny[1, 2] = 1e-300
    g = gate(ref, bad, min_top1=0.5, mask=tiny)
    assert (g.positions, g.disagreements, g.first_disagreement) == (int((tiny != 0).sum()), 2, (0, 1)) == (7, 2, (0, 1))


@pytest.mark.task("lab01.gate", points=1)
def test_the_verdict_compares_the_agreement_itself():
    """``passed`` is ``agreement >= min_top1`` on the agreement itself, not on a rounded one (the line prints 4
    decimals: 0.4286 and 1.0000 here, both above the threshold the agreement misses)."""
    for positions, flipped, min_top1 in ((7, 4, 0.42858),         # 3/7 = 0.428571... < 0.42858
                                         (100_000, 1, 1.0),       # 0.99999 < 1
                                         (3, 1, 2 / 3 + 1e-12)):  # 2/3 misses it by 1e-12: no tolerance, no rounding
        ref = logits((positions, 3), seed=29)
        g = gate(ref, flip(close(ref, 30), ref, [(p,) for p in range(flipped)]), min_top1=min_top1)
        exact = (positions - flipped) / positions
        assert g.agreement == pytest.approx(exact, abs=1e-12)
        assert exact < min_top1 <= round(exact, 4)
        assert not g.passed, g.line()
