"""Emulated network paths: network namespaces, veth, tc shaping, netem.

A :class:`Path` is a set of nodes (network namespaces) joined by links.  Each
link ``a -> b`` is built as::

    [a] --veth--> [air] --veth--> [b]
     |              |
     | egress:      | egress:
     | htb rate R   | netem delay D (+ loss)
     |  +- queue    |
    bottleneck      propagation and corruption,
    queue           *after* the queue

The ``air`` namespace bridges its two ports, so ``a`` and ``b`` share a
subnet.  Corruption therefore happens on the air, after the gateway's queue,
and its drops are counted by netem separately from the queue's own drops:
the two counters are the ground truth for "wireless" and "congestion"
losses.  The reverse direction is built the same way with its own rate,
queue and (optional) loss, so links can be asymmetric.

All commands are plain iproute2 (``ip``, ``tc``) and run as root on the
target kernel (normally inside the VM started by ``testbed/vm``).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

IP = "/usr/sbin/ip" if os.path.exists("/usr/sbin/ip") else "ip"
_TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _find_tc() -> str:
    """The patched tc (build/tc, knows cw and vcrr) if built, else the system's."""
    if os.environ.get("JERSEY_TC"):
        return os.environ["JERSEY_TC"]
    for tc in (os.path.join(_TOP, "build", "tc"), "/usr/sbin/tc"):
        if os.access(tc, os.X_OK):
            return tc
    return "tc"


TC = _find_tc()

# qdiscs that only the patched tc (make tc, build/tc) knows
OUR_QDISCS = ("cw", "vcrr")


@functools.cache
def tc_knows(kind: str, tc: str) -> bool:
    """``tc`` parses qdisc ``kind``'s options: ``tc qdisc add dev lo root KIND
    help`` prints its usage, not "Unknown qdisc" (nothing reaches the kernel)."""
    try:
        r = subprocess.run(
            [tc, "qdisc", "add", "dev", "lo", "root", kind, "help"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "Usage: ... " + kind in r.stdout + r.stderr


# Path ids name namespaces (j<id>-<node>) and subnets (10.<id>.0.0/16); ids
# of destroyed paths are reused, so a process can build any number of paths
# (at most 250 at a time).  The start depends on the pid so that two
# processes building paths at once rarely collide.
_ids_lock = threading.Lock()
_ids_used: set[int] = set()


def _alloc_id() -> int:
    base = 10 * (os.getpid() % 20)
    with _ids_lock:
        for k in range(250):
            i = (base + k) % 250 + 1
            if i not in _ids_used:
                _ids_used.add(i)
                return i
    raise RuntimeError("too many paths in one process")


def _free_id(i: int) -> None:
    with _ids_lock:
        _ids_used.discard(i)


def sh(*argv: str, ns: str | None = None, check: bool = True) -> str:
    """Run a command (inside namespace ``ns``) and return its stdout."""
    cmd = [IP, "netns", "exec", ns, *argv] if ns else list(argv)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()}")
    return proc.stdout


def pct(x: float) -> str:
    """A fraction as netem's percent literal."""
    return f"{x * 100:.6g}%"


def batch(argv: list[str], lines: list[str] | None = None, check: bool = True) -> None:
    """Run a command, feeding ``lines`` on stdin (for ``ip``/``tc -batch -``)."""
    proc = subprocess.run(argv, input="\n".join(lines or []) + "\n", capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {proc.returncode}: {proc.stderr.strip()}")


def shaper_cmds(dev: str, rate_mbit: float, queue: Queue) -> list[str]:
    """tc batch lines: htb at ``rate_mbit`` with ``queue`` as its only leaf (handle 10:)."""
    rate = f"{rate_mbit:g}mbit"
    return [
        f"qdisc add dev {dev} root handle 1: htb default 1",
        f"class add dev {dev} parent 1: classid 1:1 htb rate {rate} ceil {rate} quantum 1514",
        f"qdisc add dev {dev} parent 1:1 handle 10: {' '.join(queue.tc_args())}",
    ]


def air_cmds(dev: str, delay_ms: float, loss: Loss | None) -> list[str]:
    """tc batch lines: the propagation delay and corruption loss of a link direction."""
    args = f"netem limit 100000 delay {delay_ms:g}ms"
    if loss is not None:
        args += " " + " ".join(loss.netem_args())
    return [f"qdisc add dev {dev} root handle 1: {args}"]


# The air namespace of a link: two ports, "pa" towards a and "pb" towards b,
# bridged.  These ``ip`` batch lines build the bridge once both ports exist.
AIR_BRIDGE_CMDS = [
    "link add br0 type bridge stp_state 0 forward_delay 0",
    "link set pa master br0 up",
    "link set pb master br0 up",
    "link set br0 up",
]


def sysctl_cmd(key: str, value: str) -> str:
    """A shell line setting a sysctl through /proc/sys (no process per setting)."""
    return f"echo {value} > /proc/sys/{key.replace('.', '/')}"


def offload_cmd(dev: str) -> str:
    """No offloads: every skb is one wire packet, so queue limits and
    per-packet loss probabilities mean what they say."""
    return f"ethtool -K {dev} tso off gso off gro off"


def link_tc_cmds(link: Link) -> dict[str, list[str]]:
    """The tc batch lines of a link, by place: "a" (a's device: shaper and
    bottleneck queue a -> b), "b" (b's device: b -> a) and "pa"/"pb" (the
    air ports: delay and corruption towards a and towards b).

    The single source of the link model for both the namespace builder
    (:class:`Path`) and the Mininet topologies (``testbed/net/mininet_backend.py``).
    """
    dev = Path.dev(link)
    return {
        "a": shaper_cmds(dev, link.rate_mbit, link.queue),
        "b": shaper_cmds(dev, link.rate_rev_mbit or link.rate_mbit, link.queue_rev),
        "pb": air_cmds("pb", link.delay_ms, link.loss),
        "pa": air_cmds("pa", link.delay_ms, link.loss_rev),
    }


def direction(links: list[Link], name: str) -> tuple[int, bool]:
    """(index in ``links``, reverse?) of a link direction ``"a->b"``."""
    a, _, b = name.partition("->")
    for i, link in enumerate(links):
        if (link.a, link.b) == (a, b):
            return i, False
        if (link.a, link.b) == (b, a):
            return i, True
    raise KeyError(f"no link direction {name}")


def node_addr(path_id: int, link: Link, node: str) -> str:
    """The address of ``node`` on ``link``: 10.<path id>.<link index>.<1 for a, 2 for b>."""
    host = 1 if node == link.a else 2
    return f"10.{path_id}.{link.index}.{host}"


def route_cmds(path_id: int, nodes: list[str], links: list[Link]) -> dict[str, list[str]]:
    """``ip route`` batch lines per node: static shortest-path routes to every subnet."""
    adj: dict[str, list[tuple[str, Link]]] = {n: [] for n in nodes}
    for link in links:
        adj[link.a].append((link.b, link))
        adj[link.b].append((link.a, link))
    out: dict[str, list[str]] = {}
    for src in nodes:
        first_hop: dict[str, tuple[str, Link]] = {}
        seen, todo = {src}, deque([src])
        while todo:
            cur = todo.popleft()
            for nxt, link in adj[cur]:
                if nxt in seen:
                    continue
                seen.add(nxt)
                first_hop[nxt] = first_hop.get(cur) or (nxt, link)
                todo.append(nxt)
        direct = {link.index for _, link in adj[src]}
        out[src] = []
        for link in links:
            if link.index in direct:
                continue
            # reach the subnet through the first hop towards its nearer end
            end = link.a if link.a in first_hop else link.b
            if end not in first_hop:
                raise ValueError(f"{src} cannot reach link {link.a}-{link.b}")
            hop, via = first_hop[end]
            out[src].append(
                f"route add 10.{path_id}.{link.index}.0/24 via {node_addr(path_id, via, hop)}"
            )
    return out


def per_from_ber(ber: float, packet_bytes: int) -> float:
    """Packet error rate of ``packet_bytes`` packets at bit error rate ``ber``."""
    return 1 - (1 - ber) ** (8 * packet_bytes)


def red_args(
    limit_bytes: int,
    min_bytes: int,
    max_bytes: int,
    avpkt: int,
    burst: int,
    max_p: float,
    bandwidth: str,
) -> list[str]:
    """Options of ``tc qdisc ... red ... ecn`` (``burst`` sets the averaging weight)."""
    return [
        "limit", str(limit_bytes),
        "min", str(min_bytes),
        "max", str(max_bytes),
        "avpkt", str(avpkt),
        "burst", str(burst),
        "probability", f"{max_p:g}",
        "bandwidth", bandwidth,
        "ecn",
    ]  # fmt: skip


@dataclass(frozen=True)
class Loss:
    """Corruption loss on a link direction, as netem arguments.

    ``Loss.random(0.01)``: independent loss with probability 1%.
    ``Loss.gemodel(p, r, bad_loss, good_loss)``: Gilbert-Elliott with
    transition probabilities good->bad ``p`` and bad->good ``r`` per packet,
    loss probability ``bad_loss`` (netem's 1-h) in the bad state and
    ``good_loss`` (netem's 1-k) in the good state.
    """

    kind: str
    params: tuple[float, ...]

    @staticmethod
    def random(p: float) -> Loss:
        if not 0 <= p <= 1:
            raise ValueError(f"loss probability {p} not in [0, 1]")
        return Loss("random", (p,))

    @staticmethod
    def gemodel(p: float, r: float, bad_loss: float = 1.0, good_loss: float = 0.0) -> Loss:
        for v in (p, r, bad_loss, good_loss):
            if not 0 <= v <= 1:
                raise ValueError(f"Gilbert-Elliott parameter {v} not in [0, 1]")
        if p + r == 0:
            raise ValueError("Gilbert-Elliott model needs p + r > 0")
        return Loss("gemodel", (p, r, bad_loss, good_loss))

    @staticmethod
    def ge_mean(
        mean: float, burst: float = 2.0, bad_loss: float = 1.0, good_loss: float = 0.0
    ) -> Loss:
        """Gilbert-Elliott with stationary mean loss ``mean``: bad states last
        ``burst`` packets on average (r = 1/burst) and lose ``bad_loss`` of
        their packets, good states lose ``good_loss``."""
        if not good_loss <= mean < bad_loss:
            raise ValueError(f"GE mean {mean} not in [good_loss {good_loss}, bad_loss {bad_loss})")
        if burst < 1:
            raise ValueError(f"GE burst {burst} shorter than one packet")
        r = 1 / burst
        # mean = (r*good + p*bad) / (p + r)  =>  p = r*(mean - good) / (bad - mean)
        return Loss.gemodel(r * (mean - good_loss) / (bad_loss - mean), r, bad_loss, good_loss)

    @staticmethod
    def from_spec(spec: Any) -> Loss | None:
        """A loss model from scenario data.

        ``None`` or ``0``: no loss; a number ``p``: ``loss random p``;
        ``{"random": p}``; ``{"gemodel": {"p":, "r":, "bad_loss":, "good_loss":}}``;
        ``{"ge_mean": m, "burst": packets, "bad_loss": 1, "good_loss": 0}``;
        ``{"good_pkts": g, "bad_pkts": b, "bad_loss": x}`` (mean sojourn in
        packets, e.g. the NewReno-LP paper's 1 s good / 50 ms bad at the
        link's packet rate); ``{"ber": e, "bytes": n}``: random loss of an
        n-byte packet with independent bit errors, 1 - (1 - e)^(8 n).
        """
        if spec is None or (isinstance(spec, int | float) and not isinstance(spec, bool)):
            return Loss.random(float(spec)) if spec else None
        if not isinstance(spec, dict):
            raise ValueError(f"loss: expected a number or a table, got {spec!r}")
        keys = set(spec)

        def need(allowed: set[str]) -> None:
            if not keys <= allowed:
                raise ValueError(f"loss: unknown keys {sorted(keys - allowed)} in {spec!r}")

        if "random" in keys:
            need({"random"})
            return Loss.from_spec(spec["random"])
        if "gemodel" in keys:
            need({"gemodel"})
            g = spec["gemodel"]
            return Loss.gemodel(g["p"], g["r"], g.get("bad_loss", 1.0), g.get("good_loss", 0.0))
        if "ge_mean" in keys:
            need({"ge_mean", "burst", "bad_loss", "good_loss"})
            if not spec["ge_mean"]:
                return None
            return Loss.ge_mean(
                spec["ge_mean"],
                spec.get("burst", 2.0),
                spec.get("bad_loss", 1.0),
                spec.get("good_loss", 0.0),
            )
        if "good_pkts" in keys:
            need({"good_pkts", "bad_pkts", "bad_loss", "good_loss"})
            if not spec.get("bad_loss", 1.0) and not spec.get("good_loss", 0.0):
                return None
            return Loss.gemodel(
                1 / spec["good_pkts"],
                1 / spec["bad_pkts"],
                spec.get("bad_loss", 1.0),
                spec.get("good_loss", 0.0),
            )
        if "ber" in keys:
            need({"ber", "bytes"})
            per = per_from_ber(float(spec["ber"]), int(spec["bytes"]))
            return Loss.random(per) if per > 0 else None
        raise ValueError(f"loss: unknown model {spec!r}")

    @property
    def mean(self) -> float:
        """Stationary mean loss probability."""
        if self.kind == "random":
            return self.params[0]
        p, r, bad, good = self.params
        return (r * good + p * bad) / (p + r)

    def netem_args(self) -> list[str]:
        if self.kind == "random":
            return ["loss", "random", pct(self.params[0])]
        p, r, bad, good = self.params
        return ["loss", "gemodel", pct(p), pct(r), pct(bad), pct(good)]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "params": list(self.params), "mean": self.mean}


@dataclass(frozen=True)
class Queue:
    """The bottleneck queue: a tc qdisc kind and its arguments."""

    kind: str = "pfifo"
    args: tuple[str, ...] = ("limit", "50")

    @staticmethod
    def pfifo(limit: int = 50) -> Queue:
        return Queue("pfifo", ("limit", str(limit)))

    @staticmethod
    def red_ecn(
        rate_mbit: float,
        min_pkts: float = 5,
        max_pkts: float = 15,
        max_p: float = 0.1,
        limit_pkts: int = 50,
        avpkt: int = 1500,
        burst: int | None = None,
    ) -> Queue:
        """The kernel's RED with ECN marking, thresholds in packets (of avpkt bytes).

        tc derives RED's averaging weight from ``burst`` (packets); the
        default is tc-red(8)'s recommendation (2 min + max) / 3.
        """
        burst = burst or int((2 * min_pkts + max_pkts) / 3) + 1
        args = red_args(
            int(limit_pkts * avpkt),
            int(min_pkts * avpkt),
            int(max_pkts * avpkt),
            avpkt,
            burst,
            max_p,
            f"{rate_mbit:g}mbit",
        )
        return Queue("red", tuple(args))

    @staticmethod
    def from_spec(spec: Any, rate_mbit: float) -> Queue:
        """A bottleneck queue from scenario data, for a link of ``rate_mbit``.

        A kind name (``"pfifo"``, ``"red_ecn"``, ``"cw"``, ``"vcrr"``,
        ``"fq_codel"``, ``"pie"``) or a table with ``kind`` and its options:
        ``limit`` (packets) everywhere; ``red_ecn``: ``min``, ``max``
        (packets), ``max_p``, ``burst``; ``cw``: ``thresh``, ``mode``
        (aq|pq), ``w``, ``interval``; ``vcrr``: ``gamma``, ``interval``,
        ``rate`` (default: the link's); any other option of other kinds is
        passed to tc as ``key value`` (``true`` as a bare flag, e.g. ``ecn``).
        """
        if isinstance(spec, str):
            spec = {"kind": spec}
        if not isinstance(spec, dict) or "kind" not in spec:
            raise ValueError(f"queue: expected a kind or a table with 'kind', got {spec!r}")
        opts = {k: v for k, v in spec.items() if k != "kind"}
        kind = spec["kind"]
        if kind == "pfifo":
            if not set(opts) <= {"limit"}:
                raise ValueError(f"queue pfifo: unknown options {sorted(set(opts) - {'limit'})}")
            return Queue.pfifo(int(opts.get("limit", 50)))
        if kind == "red_ecn":
            allowed = {"min", "max", "max_p", "limit", "burst", "avpkt"}
            if not set(opts) <= allowed:
                raise ValueError(f"queue red_ecn: unknown options {sorted(set(opts) - allowed)}")
            return Queue.red_ecn(
                rate_mbit,
                min_pkts=opts.get("min", 5),
                max_pkts=opts.get("max", 15),
                max_p=opts.get("max_p", 0.1),
                limit_pkts=int(opts.get("limit", 50)),
                avpkt=int(opts.get("avpkt", 1500)),
                burst=opts.get("burst"),
            )
        opts.setdefault("limit", 50)
        if kind == "vcrr":
            opts.setdefault("rate", f"{rate_mbit:g}mbit")
        args: list[str] = []
        for k, v in opts.items():
            if v is True:
                args.append(str(k))
            elif v is not False and v is not None:
                args += [str(k), f"{v:g}" if isinstance(v, float) else str(v)]
        return Queue(kind, tuple(args))

    @property
    def limit(self) -> int | None:
        """The buffer in packets (RED's byte limit over avpkt), if given."""

        def opt(key: str) -> str | None:
            args = list(self.args)
            return args[args.index(key) + 1] if key in args[:-1] else None

        limit = opt("limit")
        if limit is None or not limit.isdigit():
            return None
        if self.kind == "red":
            return int(limit) // int(opt("avpkt") or 1500)
        return int(limit)

    def tc_args(self) -> list[str]:
        return [self.kind, *self.args]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "args": list(self.args)}


@dataclass
class Link:
    a: str
    b: str
    rate_mbit: float
    delay_ms: float
    loss: Loss | None = None  # a -> b
    queue: Queue = field(default_factory=Queue)  # at a's egress, a -> b
    rate_rev_mbit: float | None = None  # b -> a; None: same as rate_mbit
    loss_rev: Loss | None = None
    queue_rev: Queue = field(default_factory=Queue)
    # filled in by Path.build()
    index: int = -1

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "rate_mbit": self.rate_mbit,
            "rate_rev_mbit": self.rate_rev_mbit or self.rate_mbit,
            "delay_ms": self.delay_ms,
            "loss": self.loss.to_json() if self.loss else None,
            "loss_rev": self.loss_rev.to_json() if self.loss_rev else None,
            "queue": self.queue.to_json(),
            "queue_rev": self.queue_rev.to_json(),
        }


class Path:
    """Nodes joined by links, built in fresh network namespaces.

    Use as a context manager: namespaces are deleted on exit.
    """

    backend = "netns"

    def __init__(self, links: list[Link], sysctls: dict[str, dict[str, str]] | None = None):
        self.id = _alloc_id()
        self.links = links
        self.nodes: list[str] = []
        for link in links:
            for n in (link.a, link.b):
                if n not in self.nodes:
                    self.nodes.append(n)
        self.sysctls = sysctls or {}
        self._built = False

    # -- naming -----------------------------------------------------------
    def ns(self, node: str) -> str:
        return f"j{self.id}-{node}"

    def air(self, link: Link) -> str:
        return f"j{self.id}-air{link.index}"

    def addr(self, link: Link, node: str) -> str:
        return node_addr(self.id, link, node)

    def mac(self, link: Link, node: str) -> str:
        """A fixed, locally administered MAC of ``node``'s device on ``link``."""
        end = 0 if node == link.a else 1
        return f"02:6a:{self.id >> 8 & 255:02x}:{self.id & 255:02x}:{link.index:02x}:{end:02x}"

    def ip_of(self, node: str) -> str:
        """An address of ``node`` (its first link's)."""
        for link in self.links:
            if node in (link.a, link.b):
                return self.addr(link, node)
        raise KeyError(node)

    @staticmethod
    def dev(link: Link) -> str:
        """The device name on both end nodes of a link."""
        return f"e{link.index}"

    # -- construction -------------------------------------------------------
    def build(self) -> Path:
        """Create namespaces, links, addresses, routes and qdiscs.

        Commands are grouped into one ``ip -batch``/``tc -batch`` per
        namespace: spawning processes is the slow part under TCG.
        """
        for i, link in enumerate(self.links):
            link.index = i
        ip: dict[str | None, list[str]] = {None: []}
        tc: dict[str, list[str]] = {}
        shell: dict[str, list[str]] = {}
        spaces = [self.ns(n) for n in self.nodes] + [self.air(link) for link in self.links]
        for name in spaces:
            ip[None].append(f"netns add {name}")
            ip[name] = ["link set lo up"]
            tc[name] = []
            shell[name] = []
        for node in self.nodes:
            settings = {"net.ipv4.ip_forward": "1", **self.sysctls.get(node, {})}
            shell[self.ns(node)] += [sysctl_cmd(k, v) for k, v in settings.items()]
        for link in self.links:
            self._link_cmds(link, ip, tc, shell)
        self._route_cmds(ip)
        self._built = True
        batch([IP, "-batch", "-"], ip.pop(None))
        for name in spaces:
            batch([IP, "-n", name, "-batch", "-"], ip[name])
            batch([IP, "netns", "exec", name, "sh", "-ec", "\n".join(shell[name])])
            if tc[name]:
                batch([TC, "-n", name, "-batch", "-"], tc[name])
        return self

    def _link_cmds(
        self,
        link: Link,
        ip: dict[str | None, list[str]],
        tc: dict[str, list[str]],
        shell: dict[str, list[str]],
    ) -> None:
        air, dev = self.air(link), self.dev(link)
        ends = ((link.a, "pa", link.b), (link.b, "pb", link.a))
        for end, peer, other in ends:
            ns = self.ns(end)
            ip[None].append(
                f"link add {dev} netns {ns} address {self.mac(link, end)}"
                f" type veth peer name {peer} netns {air}"
            )
            ip[ns] += [
                f"addr add {self.addr(link, end)}/24 dev {dev}",
                f"link set {dev} up",
                # no ARP across the emulated medium: its loss would fail
                # connections (EHOSTUNREACH) that the papers' links never see
                f"neigh replace {self.addr(link, other)} lladdr {self.mac(link, other)}"
                f" dev {dev} nud permanent",
            ]
            shell[ns].append(offload_cmd(dev))
            shell[air].append(offload_cmd(peer))
        ip[air] += AIR_BRIDGE_CMDS
        cmds = link_tc_cmds(link)
        tc[self.ns(link.a)] += cmds["a"]
        tc[self.ns(link.b)] += cmds["b"]
        tc[air] += cmds["pb"] + cmds["pa"]

    def _route_cmds(self, ip: dict[str | None, list[str]]) -> None:
        """Static shortest-path routes from every node to every subnet."""
        for node, lines in route_cmds(self.id, self.nodes, self.links).items():
            ip[self.ns(node)] += lines

    def netns_inodes(self) -> dict[str, int]:
        """Inode of every namespace of the path (qdisc tracepoints print it as netns=)."""
        names = [self.ns(n) for n in self.nodes] + [self.air(link) for link in self.links]
        return {name: os.stat(f"/run/netns/{name}").st_ino for name in names}

    def destroy(self) -> None:
        if not self._built:
            return
        names = [self.ns(n) for n in self.nodes] + [self.air(link) for link in self.links]
        batch([IP, "-force", "-batch", "-"], [f"netns del {n}" for n in names], check=False)
        self._built = False
        _free_id(self.id)

    def __enter__(self) -> Path:
        return self.build()

    def __exit__(self, *exc: object) -> None:
        self.destroy()

    # -- measurement ---------------------------------------------------------
    def qdisc_stats(self, ns: str, dev: str | None = None) -> list[dict[str, Any]]:
        """``tc -s -j qdisc show [dev DEV]`` in namespace ``ns`` (tc enters it itself)."""
        out = sh(TC, "-n", ns, "-s", "-j", "qdisc", "show", *(["dev", dev] if dev else []))
        return json.loads(out) if out.strip() else []

    def all_qdisc_stats(self) -> dict[tuple[str, str], list[dict[str, Any]]]:
        """Every qdisc of the path by (namespace, device), one ``tc`` per namespace."""
        out: dict[tuple[str, str], list[dict[str, Any]]] = {}
        names = [self.ns(n) for n in self.nodes] + [self.air(link) for link in self.links]
        for ns in names:
            for q in self.qdisc_stats(ns):
                out.setdefault((ns, q.get("dev", "")), []).append(q)
        return out

    def queue_stats(self, link: Link, reverse: bool = False) -> dict[str, Any]:
        """Statistics of the bottleneck queue (handle 10:) of a link direction."""
        node = link.b if reverse else link.a
        for q in self.qdisc_stats(self.ns(node), self.dev(link)):
            if q.get("handle") == "10:":
                return q
        raise RuntimeError(f"no bottleneck queue on {node}/{self.dev(link)}")

    def nstat(self, node: str) -> dict[str, int]:
        """The kernel's SNMP/netstat counters of a node (absolute values)."""
        out = sh("nstat", "-a", "-z", "-j", ns=self.ns(node))
        data = json.loads(out)
        return {k: int(v) for k, v in data.get("kernel", {}).items()}
