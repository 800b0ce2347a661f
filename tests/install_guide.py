"""The README's install guide as data, and the module list as Kbuild builds it.

The section of README.md between ``<!-- install-guide:begin -->`` and
``<!-- install-guide:end -->`` holds the host/gateway walkthrough.  Each of its
fenced ``sh`` blocks is preceded by a marker comment: ``<!-- install-guide: NAME -->``
(run verbatim, in order, by tests/install_walkthrough.py in the VM) or
``<!-- install-guide: untested (REASON) -->``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
README = TOP / "README.md"
BEGIN = "<!-- install-guide:begin -->"
END = "<!-- install-guide:end -->"
BLOCK = re.compile(
    r"<!-- install-guide: (?P<name>[^>]*?) -->\n+```(?P<lang>\w*)\n(?P<code>.*?)^```$", re.M | re.S
)
FENCE = re.compile(r"^```\w*$", re.M)


@dataclass(frozen=True)
class Block:
    name: str  # the marker's name; "untested (…)" for blocks not run
    code: str

    @property
    def tested(self) -> bool:
        return not self.name.startswith("untested")


def section(text: str | None = None) -> str:
    """The install guide: the README between the begin and end markers."""
    text = README.read_text() if text is None else text
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise ValueError(f"README needs exactly one {BEGIN} and one {END}")
    return text.split(BEGIN, 1)[1].split(END, 1)[0]


def blocks(text: str | None = None) -> list[Block]:
    """Every fenced block of the guide, in order; each must carry a marker."""
    sec = section(text)
    found = list(BLOCK.finditer(sec))
    if 2 * len(found) != len(FENCE.findall(sec)):
        raise ValueError("every code block of the install guide needs an install-guide marker")
    out = []
    for m in found:
        if m.group("lang") != "sh":
            raise ValueError(f"block {m.group('name')!r} is not a sh block")
        out.append(Block(m.group("name"), m.group("code")))
    names = [b.name for b in out]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate block names: {names}")
    return out


def kbuild_modules(top: Path = TOP) -> list[tuple[str, str]]:
    """(directory, module) for every module the Kbuild files build.

    The same derivation as dkms.conf: the directories named by ./Kbuild, then
    the ``obj-m`` objects of each directory's Kbuild (continuation lines joined).
    """

    def words(path: Path) -> list[str]:
        text = path.read_text().replace("\\\n", " ")
        out: list[str] = []
        for line in text.splitlines():
            m = re.match(r"\s*obj-m\s*[+:]?=(.*)", line)
            if m:
                out += m.group(1).split()
        return out

    mods: list[tuple[str, str]] = []
    for d in words(top / "Kbuild"):
        d = d.rstrip("/")
        mods += [(d, o[:-2]) for o in words(top / d / "Kbuild") if o.endswith(".o")]
    return mods
