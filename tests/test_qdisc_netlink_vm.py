"""Strict netlink parsing of cw and vcrr: random raw TCA_OPTIONS sets in the VM.

tests/guest/qdisc_nlfuzz.py sends JERSEY_NLFUZZ_SETS (default 1000) random
option sets per qdisc, on every module kernel (in each kernel's shared
boot, conftest.shared_boot()), and compares each verdict
with its model of the uapi header's ranges; here: only valid sets are
accepted, every rejection carries an extended-ACK message, what is accepted
is what the qdisc dumps back, and the kernel logged no oops or warning.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import MODULE_KERNELS, NLFUZZ_SETS, vm_json

pytestmark = pytest.mark.vm

SETS = NLFUZZ_SETS


@pytest.fixture(scope="module", params=MODULE_KERNELS)
def fuzz(request: pytest.FixtureRequest) -> dict[str, Any]:
    doc = vm_json(request.param, "tests.guest.qdisc_nlfuzz", "qdisc-nlfuzz", "--sets", str(SETS))
    for q in ("cw", "vcrr"):
        r = doc[q]
        print(f"{doc['kernel']} {q}: {r['accepted']} accepted, {r['rejected']} rejected "
              f"({r['changes']} changes) in {doc['seconds']} s")  # fmt: skip
    return doc


@pytest.mark.parametrize("qdisc", ["cw", "vcrr"])
def test_only_valid_option_sets_are_accepted(fuzz: dict[str, Any], qdisc: str) -> None:
    r = fuzz[qdisc]
    assert r["sets"] == SETS
    # the generator reaches both verdicts often enough to mean something
    assert r["accepted"] > 0.1 * SETS and r["rejected"] > 0.1 * SETS, r
    assert r["disagree_count"] == 0, r["disagree"][:5]


@pytest.mark.parametrize("qdisc", ["cw", "vcrr"])
def test_every_rejection_says_why(fuzz: dict[str, Any], qdisc: str) -> None:
    r = fuzz[qdisc]
    assert r["no_message_count"] == 0, r["no_message"][:5]
    assert "Unknown attribute type" in r["messages"] or SETS < 200, r["messages"]


@pytest.mark.parametrize("qdisc", ["cw", "vcrr"])
def test_what_is_accepted_is_what_is_dumped(fuzz: dict[str, Any], qdisc: str) -> None:
    r = fuzz[qdisc]
    assert r["dump_mismatch_count"] == 0, r["dump_mismatch"][:5]


def test_no_oops(fuzz: dict[str, Any]) -> None:
    assert not fuzz["kernel_problems"], fuzz["kernel_problems"][:20]
