"""A time-based Gilbert-Elliott channel: netem's loss switched between two states.

netem's own ``loss gemodel`` moves between its states *per packet*, so a bad
state with 100 % loss ends only after its mean number of packets has been
sent, and a sender waiting in RTO backoff sends one packet per timeout: the
"bad" period then lasts minutes instead of the paper's 50 ms.  The papers'
fading channel (`002_...`: Good 1 s, Bad 0.05 s on average) is a Markov chain
in *time*; :class:`Fading` emulates it as a trial monitor that, while the
flows run, switches the link's netem between ``loss random good_loss`` and
``loss random bad_loss`` at exponentially distributed instants, through one
long-lived ``tc -batch`` process (``tc qdisc change`` keeps queued packets).
netem's drop counter and the packet captures still give the ground truth.
"""

from __future__ import annotations

import contextlib
import random
import subprocess
import threading
import time
from collections.abc import Iterator
from typing import Any

from testbed.net.path import TC, Path, air_cmds, pct
from testbed.programs import require


def schedule(
    rng: random.Random, duration_s: float, good_s: float, bad_s: float
) -> list[tuple[float, bool]]:
    """(start time, bad?) of alternating states covering ``duration_s``, starting good."""
    out, t, bad = [], 0.0, False
    while t < duration_s:
        out.append((t, bad))
        t += rng.expovariate(1 / (bad_s if bad else good_s))
        bad = not bad
    return out


class Fading:
    """Trial monitor: time-based Gilbert-Elliott loss on ``path.links[link_index]``.

    The monitor owns netem's loss on that link; give the link
    ``Loss.random(0)`` so that testbed.measure.groundtruth treats its air as a place
    where packets can be lost.
    """

    def __init__(
        self,
        link_index: int,
        good_s: float = 1.0,
        bad_s: float = 0.05,
        bad_loss: float = 1.0,
        good_loss: float = 0.0,
        seed: int | None = None,
        reverse: bool = False,
    ):
        self.link_index = link_index
        self.good_s, self.bad_s = good_s, bad_s
        self.bad_loss, self.good_loss = bad_loss, good_loss
        self.seed = seed
        self.reverse = reverse

    def to_json(self) -> dict[str, Any]:
        return {
            "model": "time-based Gilbert-Elliott",
            "link_index": self.link_index,
            "reverse": self.reverse,
            "good_s": self.good_s,
            "bad_s": self.bad_s,
            "bad_loss": self.bad_loss,
            "good_loss": self.good_loss,
            "mean_loss": (self.good_s * self.good_loss + self.bad_s * self.bad_loss)
            / (self.good_s + self.bad_s),
        }

    def __call__(self, path: Path, trial: Any) -> contextlib.AbstractContextManager[dict[str, Any]]:
        return self._run(path, trial)

    def _cmd(self, path: Path, bad: bool) -> str:
        link = path.links[self.link_index]
        dev = "pa" if self.reverse else "pb"
        cmd = air_cmds(dev, link.delay_ms, None)[0].replace("qdisc add", "qdisc change", 1)
        loss = self.bad_loss if bad else self.good_loss
        return f"{cmd} loss random {pct(loss)}" if loss > 0 else cmd

    @contextlib.contextmanager
    def _run(self, path: Path, trial: Any) -> Iterator[dict[str, Any]]:
        require(TC, what="[monitor] fading")
        ns = path.air(path.links[self.link_index])
        horizon = max((f.start_s + f.duration_s for f in trial.flows), default=0) + 30
        plan = schedule(random.Random(self.seed), horizon, self.good_s, self.bad_s)
        cmds = {bad: self._cmd(path, bad) for bad in (False, True)}
        tc = subprocess.Popen(
            [TC, "-force", "-n", ns, "-batch", "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert tc.stdin is not None
        stop = threading.Event()
        doc: dict[str, Any] = {**self.to_json(), "commands": {str(k): v for k, v in cmds.items()}}
        done: list[tuple[float, bool]] = []

        def run() -> None:
            assert tc.stdin is not None
            t0 = time.monotonic()
            for start, bad in plan:
                if stop.wait(max(0.0, t0 + start - time.monotonic())):
                    break
                tc.stdin.write(cmds[bad] + "\n")
                tc.stdin.flush()
                done.append((time.monotonic() - t0, bad))

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        try:
            yield doc
        finally:
            stop.set()
            worker.join()
            # back to the good state; communicate() closes stdin, tc exits
            _, err = tc.communicate(cmds[False] + "\n", timeout=30)
            bad_time = sum(
                (done[i + 1][0] if i + 1 < len(done) else done[i][0]) - done[i][0]
                for i in range(len(done))
                if done[i][1]
            )
            total = done[-1][0] if done else 0.0
            doc.update(
                {
                    "switches": len(done),
                    "bad_periods": sum(1 for _, b in done if b),
                    "bad_time_s": bad_time,
                    "elapsed_s": total,
                    "tc_errors": err.strip()[-500:],
                }
            )


def combine(primary: Any, **extra: Any) -> Any:
    """Several trial monitors as one: yields ``primary``'s dict with the others' under their keys.

    ``combine(groundtruth.Capture(), fading=Fading(2))``
    """

    def factory(path: Path, trial: Any) -> contextlib.AbstractContextManager[dict[str, Any]]:
        @contextlib.contextmanager
        def both() -> Iterator[dict[str, Any]]:
            with contextlib.ExitStack() as stack:
                doc = stack.enter_context(primary(path, trial))
                for key, monitor in extra.items():
                    doc[key] = stack.enter_context(monitor(path, trial))
                yield doc

        return both()

    return factory
