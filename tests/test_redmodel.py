"""The RED zero-loss max_th model (testbed/net/redmodel.py) against the papers' table."""

from __future__ import annotations

import json

import pytest

from testbed.net import redmodel as rm

# (w, min_th, max_th (reference), max_p) -> analytic Qmax of `000_...` table II /
# `001_...` table I
PAPER = [
    ((0.002, 5, 15, 0.1), 7.3),
    ((0.002, 5, 15, 0.2), 6.7),
    ((0.002, 7, 21, 0.1), 9.6),
]
# the papers do not give their flows; one flow with a 19-packet window
# (fitted to case 1 alone) reproduces all three
FLOWS = [rm.FlowWindow(19, 0.059)]


@pytest.mark.parametrize(("case", "analytic"), PAPER, ids=["case1", "case2", "case3"])
def test_reproduces_the_papers_analytic_column(
    case: tuple[float, float, float, float], analytic: float
) -> None:
    w, min_th, max_th_ref, max_p = case
    res = rm.max_th(min_th, w, max_p, FLOWS, max_th_ref)
    print(f"{case}: model {res.max_th:.2f}, paper {analytic}")
    assert res.max_th == pytest.approx(analytic, abs=0.2)


def test_is_a_fixed_point_of_eq_8() -> None:
    res = rm.max_th(5, 0.002, 0.1, FLOWS, 15)
    # p is RED's probability at the returned average ...
    assert res.p == pytest.approx(0.1 * (res.max_th - 5) / (15 - 5))
    # ... and (8) holds with that p
    assert res.max_th == pytest.approx(5 + 1 / (res.p * 19) + 0.002)
    assert res.betas == pytest.approx((1 / (res.p * 19),))


def test_given_p_more_flows_and_windows() -> None:
    # eq. (8) with p given: min_th + sum(1/(p W_i) + w)
    res = rm.max_th(5, 0.002, 0.1, [rm.FlowWindow(10), rm.FlowWindow(20)], p=0.05)
    assert res.max_th == pytest.approx(5 + 2 + 0.002 + 1 + 0.002)
    # more flows or smaller windows need a larger max_th; a larger max_p a smaller one
    one = rm.max_th(5, 0.002, 0.1, [rm.FlowWindow(20)]).max_th
    two = rm.max_th(5, 0.002, 0.1, [rm.FlowWindow(20)] * 2).max_th
    small = rm.max_th(5, 0.002, 0.1, [rm.FlowWindow(10)]).max_th
    steep = rm.max_th(5, 0.002, 0.2, [rm.FlowWindow(20)]).max_th
    assert two > one and small > one and steep < one
    # default reference is 3 min_th
    assert rm.max_th(5, 0.002, 0.1, FLOWS).max_th == pytest.approx(
        rm.max_th(5, 0.002, 0.1, FLOWS, 15).max_th
    )


def test_rejects_bad_inputs() -> None:
    with pytest.raises(ValueError):
        rm.max_th(5, 0.002, 0.1, [])
    with pytest.raises(ValueError):
        rm.max_th(5, 0.002, 0.0, FLOWS)
    with pytest.raises(ValueError):
        rm.max_th(5, 0.002, 0.1, FLOWS, max_th_ref=5)
    with pytest.raises(ValueError):
        rm.max_th(5, 0.002, 0.1, FLOWS, p=1.5)
    with pytest.raises(ValueError):
        rm.FlowWindow(0)


def test_burst_gives_linux_wlog_for_w() -> None:
    # iproute2's tc_red_eval_ewma: W = 2^-Wlog; 0.002 ~ 2^-9
    burst = rm.burst_for_weight(0.002, 5)
    assert rm.red_wlog(burst, 5) == 9
    assert rm.red_wlog(burst - 1, 5) == 8
    assert rm.red_wlog(rm.burst_for_weight(0.002, 7), 7) == 9
    with pytest.raises(ValueError):
        rm.red_wlog(3, 5)


def test_tc_args_and_cli(capsys: pytest.CaptureFixture[str]) -> None:
    args = rm.tc_red_args(5, 7.3, 0.1, 0.002, 64, avpkt=1000, limit_pkts=60, harddrop=True)
    assert args[:6] == ["limit", "60000", "min", "5000", "max", "7300"]
    assert args[-2:] == ["ecn", "harddrop"]
    assert "bandwidth" in args and "64kbit" in args
    assert rm.main(["--min-th", "5", "--max-p", "0.1", "--flow", "19:0.059", "--dev", "e1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["max_th"] == pytest.approx(7.3, abs=0.2)
    assert doc["wlog"] == 9
    assert doc["tc"].startswith("tc qdisc add dev e1 root red limit ")
    assert doc["tc"].endswith(" ecn")
