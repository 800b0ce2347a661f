"""Kernel style: every kernel source of the tree passes ``checkpatch.pl --strict``.

The modules (kmod/), the qdiscs (qdisc/) and the testbed's oracle
(testbed/oracle/) are checked file by file with the kernel's own checker
(scripts/checkpatch fetches it; ``make deps`` does that).  A message is
accepted only where ALLOWED names its file pattern and type, each with the
reason upstream code carries the same message; anything else fails, so a
style slip in a change shows here and not in a reviewer's mail.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
from pathlib import Path

import pytest

TOP = Path(__file__).resolve().parent.parent
CHECKPATCH = TOP / "scripts" / "checkpatch"
SOURCES = ("kmod/*.[ch]", "qdisc/*.[ch]", "testbed/oracle/*.[ch]")

# The kernel-independent arithmetic headers compile in userspace too (the C
# unit tests, tests/unit/): BIT(), ARRAY_SIZE() and the kernel's u32 typedefs
# do not exist there, so they spell them out (cc_core.h defines the typedefs
# for userspace), and cc_core.h's event-name table is a __print_symbolic()
# list, which checkpatch reads as a macro with a complex value.
_USERSPACE = "kernel-independent header, also compiled in userspace"
# TRACE_EVENT() is laid out as in include/trace/events/*.h (TP_PROTO, TP_ARGS,
# TP_STRUCT__entry on lines of their own), and field lists shared by several
# events are macros of __field()/__entry expressions, which checkpatch takes
# for code; upstream trace headers carry the same messages.
_TRACE = "TRACE_EVENT layout and shared field-list macros, as upstream trace headers"
# checkpatch reports a CamelCase name once per run, in the first file using it
_KERNEL_NAMES = "struct Qdisc / Qdisc_ops, the kernel's names"

ALLOWED: dict[tuple[str, str], str] = {
    **{
        (pattern, kind): _USERSPACE
        for pattern in ("kmod/*_core.h", "qdisc/*_core.h", "qdisc/jq_math.h")
        for kind in ("BIT_MACRO", "PREFER_KERNEL_TYPES", "ARRAY_SIZE", "COMPLEX_MACRO")
    },
    **{
        (pattern, kind): _TRACE
        for pattern in ("kmod/trace_*.h", "qdisc/trace_*.h", "testbed/oracle/trace_*.h")
        for kind in (
            "OPEN_ENDED_LINE",
            "PARENTHESIS_ALIGNMENT",
            "COMPLEX_MACRO",
            "MACRO_ARG_REUSE",
            "MULTISTATEMENT_MACRO_USE_DO_WHILE",
            "CAMELCASE",
        )
    },
    # qdisc/jq_skb.h holds the two qdiscs' shared tracepoint field lists
    **{("qdisc/jq_skb.h", kind): _TRACE for kind in ("COMPLEX_MACRO", "MACRO_ARG_REUSE")},
    # the compat headers exist to test the kernel version: one source builds
    # for Debian's 6.1, 6.12 and 7.3
    **{
        (pattern, kind): "compat header: the kernel version is what it tests"
        for pattern in ("kmod/compat.h", "qdisc/compat.h")
        for kind in ("LINUX_VERSION_CODE", "CONSTANT_COMPARISON")
    },
    ("kmod/compat.h", "MACRO_ARG_REUSE"): "compat header: a wrapper names its argument twice",
    # CC_PARAM_ENUM() names the parameter in module_param_cb() and
    # MODULE_PARM_DESC(), as module_param_named() itself does
    ("kmod/cc_glue.h", "MACRO_ARG_REUSE"): "a module parameter's name used twice, by design",
    # struct Qdisc and Qdisc_ops are the kernel's own names; with --no-tree
    # checkpatch cannot know they are not ours
    **{
        (pattern, "CAMELCASE"): _KERNEL_NAMES
        for pattern in ("qdisc/sch_*.c", "qdisc/jq_skb.h", "testbed/oracle/tcp_oracle.c")
    },
    # the netlink header in the style of include/uapi/linux/pkt_sched.h
    # (comments inside enums, 1U << n constants), shared byte for byte with
    # the tc patch (iproute2-patch/), which must not drift from it
    **{
        (
            "qdisc/jersey_pkt_sched.h",
            kind,
        ): "uapi header in pkt_sched.h's style, copied into the tc patch"
        for kind in ("BIT_MACRO", "LINE_SPACING", "BLOCK_COMMENT_STYLE")
    },
}

# "kmod/tcp_jersey.c:12: WARNING:LONG_LINE: line length of 101 exceeds 100"
MESSAGE = re.compile(
    r"^(?P<file>[^:\s]+):(?P<line>\d+): "
    r"(?P<level>ERROR|WARNING|CHECK):(?P<kind>[A-Z0-9_]+): (?P<text>.*)$"
)


def sources() -> list[str]:
    return sorted({str(p.relative_to(TOP)) for pat in SOURCES for p in TOP.glob(pat)})


def checkpatch(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CHECKPATCH), "--", "--strict", "--no-tree", "--terse", "--show-types", "-f", *args],
        cwd=TOP,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def messages() -> list[dict[str, str]]:
    files = sources()
    assert len(files) >= 30, f"kernel sources not found: {files}"
    p = checkpatch(*files)
    # 0: clean, 1: messages; anything else (or a complaint on stderr) is
    # checkpatch itself failing, which must not pass for clean sources
    assert p.returncode in (0, 1) and not p.stderr.strip(), f"checkpatch failed: {p.stderr}"
    return [m.groupdict() for m in map(MESSAGE.match, p.stdout.splitlines()) if m]


def allowed(file: str, kind: str) -> bool:
    return any(fnmatch.fnmatch(file, pat) and kind == k for pat, k in ALLOWED)


def test_kernel_sources_pass_checkpatch_strict(messages: list[dict[str, str]]) -> None:
    bad = [
        f"{m['file']}:{m['line']}: {m['level']}:{m['kind']}: {m['text']}"
        for m in messages
        if not allowed(m["file"], m["kind"])
    ]
    assert not bad, "checkpatch.pl --strict (scripts/checkpatch FILE):\n" + "\n".join(bad)


def test_every_allowance_is_still_needed(messages: list[dict[str, str]]) -> None:
    """An allowance no message uses any more goes, so the list does not grow
    into a blanket exemption."""
    used = {
        (pat, k)
        for m in messages
        for pat, k in ALLOWED
        if m["kind"] == k and fnmatch.fnmatch(m["file"], pat)
    }
    # the userspace and trace groups list every kind their files may carry,
    # and a CamelCase name is reported in one file of a run only: the
    # single-purpose allowances must each be in use
    single = {key for key, why in ALLOWED.items() if why not in (_USERSPACE, _TRACE, _KERNEL_NAMES)}
    assert not single - used, f"allowances no longer needed: {sorted(single - used)}"


def test_checkpatch_finds_a_style_error(tmp_path: Path) -> None:
    """The guard can fail: a badly styled module source is reported."""
    bad = tmp_path / "tcp_bad.c"
    bad.write_text(
        "// SPDX-License-Identifier: GPL-2.0\n"
        "#include <linux/module.h>\n"
        "static int bad( int x ){ if (x) return 1; else { return 0; } }\n"
        'MODULE_LICENSE("GPL");\n'
    )
    p = checkpatch(str(bad))
    kinds = {m["kind"] for m in map(MESSAGE.match, p.stdout.splitlines()) if m}
    assert {"SPACING", "OPEN_BRACE"} & kinds, p.stdout
