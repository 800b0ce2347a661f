"""Random raw-netlink TCA_OPTIONS for sch_cw and sch_vcrr, against a model.

The guest half of tests/test_qdisc_netlink_vm.py: in a network namespace of
its own, with a dummy device, it sends N random option sets per qdisc as
RTM_NEWQDISC messages (a new root qdisc, or a change of the one in place),
with random attribute types (unknown ones too), lengths, values at and
beyond every bound, trailing bytes and a missing NLA_F_NESTED flag.  A model
of what each qdisc must accept (tests/guest/qdisc_nlfuzz.py's ``Cw`` and
``Vcrr``: the uapi header's ranges and the cross-field rules) says whether
each set is valid; the result records every disagreement, every rejection
without an extended-ACK message, and, for every accepted set, whether the
options dumped back (RTM_GETQDISC) are the model's: a value the qdisc
ignored shows there.  The kernel log is searched for oopses afterwards.

    python -m tests.guest.qdisc_nlfuzz --out FILE [--sets N] [--seed S]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import socket
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from testbed import modules

RTM_NEWQDISC, RTM_DELQDISC, RTM_GETQDISC = 36, 37, 38
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLM_F_REPLACE, NLM_F_EXCL, NLM_F_CREATE = 0x100, 0x200, 0x400
NLM_F_ACK_TLVS = 0x200
SOL_NETLINK, NETLINK_CAP_ACK, NETLINK_EXT_ACK = 270, 10, 11
NLMSGERR_ATTR_MSG = 1
TCA_KIND, TCA_OPTIONS = 1, 2
NLA_F_NESTED = 0x8000
TC_H_ROOT = 0xFFFFFFFF
CLONE_NEWNET = 0x40000000
U32 = 2**32
INTERVAL_MAX_US = 60_000_000


def attr(kind: int, payload: bytes) -> bytes:
    """One netlink attribute, padded to 4 bytes."""
    raw = struct.pack("HH", 4 + len(payload), kind) + payload
    return raw + b"\0" * (-len(raw) % 4)


def parse_attrs(data: bytes) -> dict[int, bytes]:
    out, i = {}, 0
    while i + 4 <= len(data):
        length, kind = struct.unpack_from("HH", data, i)
        if length < 4:
            break
        out[kind & 0x3FFF] = data[i + 4 : i + length]
        i += (length + 3) & ~3
    return out


# -- the models ----------------------------------------------------------------


@dataclass
class Field:
    """An option attribute: its type number, width and accepted range."""

    kind: int
    width: int  # 4 or 8 bytes
    lo: int
    hi: int
    name: str


class Model:
    """A qdisc's options and the rules its change() must apply."""

    name: ClassVar[str] = ""
    maxtype: ClassVar[int] = 0
    fields: ClassVar[tuple[Field, ...]] = ()
    reject: ClassVar[tuple[int, ...]] = ()  # types in range that are always refused

    def defaults(self) -> dict[str, int]:
        raise NotImplementedError

    def apply(self, cfg: dict[str, int], got: dict[str, int]) -> bool:
        """Merge the attributes into cfg; False if the whole must be refused."""
        raise NotImplementedError

    def expect_dump(self, cfg: dict[str, int]) -> dict[str, int]:
        raise NotImplementedError

    def dumped(self, opts: dict[int, bytes]) -> dict[str, int]:
        out = {}
        for f in self.fields:
            if f.kind in opts:
                fmt = "Q" if f.width == 8 else "I"
                out[f.name] = struct.unpack(fmt, opts[f.kind][: f.width])[0]
        return out


class Cw(Model):
    name, maxtype = "cw", 7
    fields = (
        Field(1, 4, 1, U32 - 1, "limit"),
        Field(2, 4, 0, U32 - 1, "thresh"),
        Field(3, 4, 0, U32 - 1, "thresh_bytes"),
        Field(4, 4, 0, 1, "mode"),
        Field(5, 4, 1, 65536, "weight"),
        Field(6, 4, 1, INTERVAL_MAX_US, "interval"),
        Field(7, 4, 0, 1, "nonect"),
    )

    def defaults(self) -> dict[str, int]:
        return {"limit": 1000, "thresh": 333, "thresh_set": 0, "bytemode": 0, "mode": 0,
                "weight": 13107, "interval": 20000, "nonect": 0}  # fmt: skip

    def apply(self, cfg: dict[str, int], got: dict[str, int]) -> bool:
        if "thresh" in got and "thresh_bytes" in got:
            return False
        for k, v in got.items():
            if k == "thresh_bytes":
                cfg.update(thresh=v, thresh_set=1, bytemode=1)
            elif k == "thresh":
                cfg.update(thresh=v, thresh_set=1, bytemode=0)
            else:
                cfg[k] = v
        if not all(f.lo <= cfg[f.name] <= f.hi for f in self.fields if f.name in cfg):
            return False
        if not cfg["thresh_set"]:
            cfg["thresh"] = cfg["limit"] // 3
        return bool(cfg["bytemode"] or cfg["thresh"] <= cfg["limit"])

    def expect_dump(self, cfg: dict[str, int]) -> dict[str, int]:
        out = {k: cfg[k] for k in ("limit", "mode", "weight", "interval", "nonect")}
        out["thresh_bytes" if cfg["bytemode"] else "thresh"] = cfg["thresh"]
        return out


class Vcrr(Model):
    name, maxtype = "vcrr", 9
    fields = (
        Field(2, 4, 1, U32 - 1, "limit"),
        Field(3, 8, 1, 2**40, "rate"),
        Field(4, 4, 1, 3 * 65536 // 2, "gamma"),
        Field(5, 4, 1, INTERVAL_MAX_US, "interval"),
        Field(6, 4, 0, 2, "estimator"),
        Field(7, 4, 1, INTERVAL_MAX_US, "window"),
        Field(8, 4, 0, 1, "nonect"),
        Field(9, 4, 1, INTERVAL_MAX_US, "qref"),
    )
    reject = (1,)  # TCA_VCRR_PAD

    def defaults(self) -> dict[str, int]:
        return {"limit": 1000, "rate": 0, "gamma": 62259, "interval": 20000, "window": 20000,
                "window_set": 0, "qref": 1_000_000, "estimator": 0, "nonect": 0}  # fmt: skip

    def apply(self, cfg: dict[str, int], got: dict[str, int]) -> bool:
        for k, v in got.items():
            cfg[k] = v
            if k == "window":
                cfg["window_set"] = 1
        if not cfg["rate"]:
            return False
        if not cfg["window_set"]:
            cfg["window"] = cfg["interval"]
        if not all(f.lo <= cfg[f.name] <= f.hi for f in self.fields):
            return False
        return cfg["window"] <= 64 * cfg["interval"]

    def expect_dump(self, cfg: dict[str, int]) -> dict[str, int]:
        return {f.name: cfg[f.name] for f in self.fields}


# -- random option sets ------------------------------------------------------------


def value(rng: random.Random, f: Field) -> int:
    """Mostly a valid value (log-uniform in the range), else one at or
    beyond a bound, or anything the width holds."""
    top: int = 2 ** (8 * f.width) - 1
    if rng.random() < 0.8:
        lo = max(f.lo, 1)
        v = int(2 ** rng.uniform(lo.bit_length() - 1, f.hi.bit_length()))
        return f.lo if f.lo == 0 and rng.random() < 0.2 else max(f.lo, min(f.hi, v))
    picks: list[int] = [0, 1, f.lo, f.hi, f.hi + 1, f.lo - 1, top, rng.randrange(top + 1)]
    return max(0, min(top, int(rng.choice(picks))))


@dataclass
class OptionSet:
    payload: bytes  # TCA_OPTIONS' contents
    nested_flag: bool
    values: dict[str, int]  # what the model applies (None: malformed)
    malformed: str  # why the kernel must refuse it before the model, or ""
    present: bool = True  # TCA_OPTIONS sent at all


def option_set(rng: random.Random, m: Model) -> OptionSet:
    if rng.random() < 0.02:
        return OptionSet(b"", True, {}, "", present=False)
    chosen = rng.sample(m.fields, rng.randrange(0, len(m.fields) + 1))
    raw, values, malformed = b"", {}, ""
    for f in chosen:
        v = value(rng, f)
        payload = struct.pack("Q" if f.width == 8 else "I", v)
        r = rng.random()
        if r < 0.04:  # a wrong length
            n = rng.choice([w for w in (0, 1, 2, 3, 4, 5, 6, 8, 12) if w != f.width])
            payload = (payload + b"\xa5" * 12)[:n]
            malformed = malformed or f"{f.name} of {n} bytes"
        raw += attr(f.kind, payload)
        values[f.name] = v
    r = rng.random()
    if r < 0.04:  # an unknown attribute type (0 is unknown too)
        kind = rng.choice([0, m.maxtype + 1, m.maxtype + 2, 0x3FFF])
        raw = raw + attr(kind, struct.pack("I", rng.randrange(U32)))
        malformed = malformed or f"unknown type {kind}"
    elif r < 0.06 and m.reject:
        raw = attr(m.reject[0], struct.pack("I", 0)) + raw
        malformed = malformed or f"refused type {m.reject[0]}"
    elif r < 0.09:  # bytes after the last attribute
        raw += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4)))
        malformed = malformed or "trailing bytes"
    nested = rng.random() >= 0.03
    if not nested:
        malformed = malformed or "NLA_F_NESTED missing"
    return OptionSet(raw, nested, values, malformed)


# -- netlink -----------------------------------------------------------------------


class Rtnl:
    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0

    def request(self, mtype: int, flags: int, body: bytes) -> list[tuple[int, int, bytes]]:
        self.seq += 1
        msg = struct.pack("IHHII", 16 + len(body), mtype, flags | NLM_F_REQUEST, self.seq, 0)
        self.sock.send(msg + body)
        out: list[tuple[int, int, bytes]] = []
        while True:
            data = self.sock.recv(65536)
            i = 0
            while i + 16 <= len(data):
                length, t, fl, seq, _pid = struct.unpack_from("IHHII", data, i)
                if seq == self.seq:
                    out.append((t, fl, data[i + 16 : i + length]))
                    if t in (NLMSG_ERROR, NLMSG_DONE):
                        return out
                i += (length + 3) & ~3

    def ack(self, mtype: int, flags: int, body: bytes) -> tuple[int, str]:
        """(errno, extended-ACK message) of a request."""
        t, fl, payload = self.request(mtype, flags | NLM_F_ACK, body)[-1]
        assert t == NLMSG_ERROR
        err = -struct.unpack_from("i", payload)[0]
        msg = ""
        if fl & NLM_F_ACK_TLVS:
            tlvs = parse_attrs(payload[4 + 16 :])  # error, then the request's header
            msg = tlvs.get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0").decode(errors="replace")
        return err, msg


def tcmsg(ifindex: int) -> bytes:
    return struct.pack("BBHiIII", socket.AF_UNSPEC, 0, 0, ifindex, 0, TC_H_ROOT, 0)


def root_options(nl: Rtnl, ifindex: int, kind: str) -> dict[int, bytes] | None:
    for t, _fl, payload in nl.request(RTM_GETQDISC, NLM_F_DUMP, tcmsg(0)):
        if t != RTM_NEWQDISC:  # a dump answers with RTM_NEWQDISC messages
            continue
        _f, _p1, _p2, idx, _h, parent, _i = struct.unpack_from("BBHiIII", payload)
        attrs = parse_attrs(payload[20:])
        if idx == ifindex and parent == TC_H_ROOT and attrs.get(TCA_KIND) == kind.encode() + b"\0":
            return parse_attrs(attrs.get(TCA_OPTIONS, b""))
    return None


# -- the run -----------------------------------------------------------------------


def fuzz(m: Model, nl: Rtnl, ifindex: int, sets: int, rng: random.Random) -> dict[str, Any]:
    res: dict[str, Any] = {"sets": sets, "accepted": 0, "rejected": 0, "changes": 0,
                           "disagree": [], "no_message": [], "dump_mismatch": [],
                           "messages": {}}  # fmt: skip
    cur: dict[str, int] | None = None
    for n in range(sets):
        change = cur is not None and rng.random() < 0.5
        if not change:
            nl.ack(RTM_DELQDISC, 0, tcmsg(ifindex))
            cur = None
        o = option_set(rng, m)
        body = tcmsg(ifindex) + attr(TCA_KIND, m.name.encode() + b"\0")
        if o.present:
            body += attr(TCA_OPTIONS | (NLA_F_NESTED if o.nested_flag else 0), o.payload)
        flags = 0 if change else NLM_F_CREATE | NLM_F_EXCL
        err, msg = nl.ack(RTM_NEWQDISC, flags, body)
        cfg = dict(cur if change and cur is not None else m.defaults())
        valid = not o.malformed and m.apply(cfg, o.values)
        what = {"n": n, "change": change, "values": o.values, "malformed": o.malformed,
                "errno": err, "message": msg}  # fmt: skip
        res["changes"] += change
        if err:
            res["rejected"] += 1
            res["messages"][msg] = res["messages"].get(msg, 0) + 1
            if not msg:
                res["no_message"].append(what)
        else:
            res["accepted"] += 1
        if valid != (err == 0):
            res["disagree"].append({**what, "model_valid": valid})
        if err == 0:
            cur = cfg if valid else None
            opts = root_options(nl, ifindex, m.name)
            want = m.expect_dump(cfg) if valid else None
            got = m.dumped(opts) if opts is not None else None
            if got != want:
                res["dump_mismatch"].append({**what, "dumped": got, "model": want})
        elif not change:
            cur = None
    res["messages"] = dict(sorted(res["messages"].items(), key=lambda kv: -kv[1]))
    for k in ("disagree", "no_message", "dump_mismatch"):
        res[f"{k}_count"] = len(res[k])
        res[k] = res[k][:20]
    return res


def kernel_log_open() -> int:
    """/dev/kmsg, read from here on: kernel_problems() reads what follows."""
    fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    os.lseek(fd, 0, os.SEEK_END)
    return fd


def kernel_problems(fd: int) -> list[str]:
    """Oopses and warnings the kernel logged since kernel_log_open() gave
    ``fd`` (records, not lines of dmesg: the ring buffer may drop its oldest
    meanwhile); records it dropped before they were read count as a problem."""
    bad = ("Oops", "BUG:", "WARNING:", "UBSAN", "general protection", "Call Trace")
    problems: list[str] = []
    try:
        while True:
            try:
                rec = os.read(fd, 8192)
            except BlockingIOError:
                break
            except BrokenPipeError:  # overwritten unread; reading goes on at the oldest
                problems.append("kernel log records lost unread (its ring buffer wrapped)")
                continue
            msg = rec.decode(errors="replace").partition(";")[2].split("\n", 1)[0]
            if any(b in msg for b in bad):
                problems.append(msg)
    finally:
        os.close(fd)
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--sets", type=int, default=1000, help="option sets per qdisc")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for mod in ("sch_cw", "sch_vcrr"):
        modules.load(mod)
    kernel_log = kernel_log_open()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
    subprocess.run(["ip", "link", "add", "d0", "type", "dummy"], check=True)
    subprocess.run(["ip", "link", "set", "d0", "up"], check=True)
    ifindex = socket.if_nametoindex("d0")
    nl = Rtnl()
    doc: dict[str, Any] = {"kernel": os.uname().release, "seed": args.seed}
    t0 = time.monotonic()
    for model in (Cw(), Vcrr()):
        rng = random.Random(f"{args.seed}-{model.name}")
        doc[model.name] = fuzz(model, nl, ifindex, args.sets, rng)
    doc["seconds"] = round(time.monotonic() - t0, 1)
    doc["kernel_problems"] = kernel_problems(kernel_log)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
