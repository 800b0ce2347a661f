"""Hold the kernel's receive timestamps on for the life of the guest.

``python3 testbed/hold_netstamp.py`` (testbed/guest-init.sh, in the VM only):
opens a UDP socket with ``SO_TIMESTAMP``, which takes a reference on the
kernel's ``netstamp_needed_key`` (``net_enable_timestamp()``), then forks: the
child keeps the socket until the guest ends, the parent exits 0, so the key is
held by the time guest-init.sh goes on.

Without a holder, every ``ping`` of a trial (``SO_TIMESTAMP``) turns that static
key on when it starts and off when it ends, and each turn patches the receive
path's hot code (``text_poke_bp()``) while the other vCPU runs it.  Under QEMU's
TCG that left a stale int3 in ``__netif_receive_skb_core()`` and panicked a
6.12 guest ("Oops: int3 ... Fatal exception in interrupt") eleven minutes
into a batch.  With one reference held from boot, the key is patched once,
before any traffic, and never again.  Standard library only: guest-init.sh
runs it with the system's python3.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

# <asm-generic/socket.h> (x86-64's value); Python's socket module lacks the name
SO_TIMESTAMP = getattr(socket, "SO_TIMESTAMP", 29)


def held() -> bool:
    """A holder is running (every point records it in its environment)."""
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if b"hold_netstamp.py" in cmdline.read_bytes():
                return True
        except OSError:  # the process ended
            continue
    return False


def main() -> int:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMP, 1)
    if os.fork():
        return 0  # the child holds the socket
    while sock:
        time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
