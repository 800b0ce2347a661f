"""Find the external programs the repository's code starts, by reading it.

Used by ``tests/test_programs.py`` to check that every program the code runs is
on the list of ``testbed/programs.txt`` (which ``make deps`` installs).  It reads

* Python: argv lists given to ``subprocess`` (and to our helpers such as
  ``netpath.sh`` or Mininet's ``node.cmd``), lists assigned to names like
  ``argv``/``cmd``, shell strings given to those calls, ``shutil.which``;
* shell: scripts, Makefile recipes, the README's ``sh`` blocks, the shell
  strings found in Python; commands are the words in command position (after
  ``;``, ``&&``, ``|``, ``$(``, keywords ...), looking through wrappers such as
  ``ip netns exec NS``, ``timeout``, ``env``, ``runuser``, ``bash -c``.

It is a reader, not a shell: it errs towards finding too much (the test keeps
a short list of words that are not programs) rather than too little.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

PROGRAM = re.compile(r"^[A-Za-z](?:[A-Za-z0-9_.+-]*[A-Za-z0-9])?$")
SYSTEM_PATH = re.compile(r"^/(?:usr/)?(?:local/)?s?bin/([A-Za-z][A-Za-z0-9_.+-]*)$")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\[[^]]*\])?\+?=")

SHELL_KEYWORDS = {
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
    "esac", "in", "function", "select", "time", "!", "{", "}", "[[", "]]",
}  # fmt: skip
SHELL_BUILTINS = {
    ".", ":", "[", "alias", "exec", "bg", "break", "builtin", "cd", "continue", "declare", "dirs",
    "disown", "echo", "eval", "exit", "export", "false", "fg", "getopts", "hash", "jobs",
    "kill", "let", "local", "mapfile", "popd", "printf", "pushd", "pwd", "read",
    "readarray", "readonly", "return", "set", "shift", "shopt", "source", "test", "trap",
    "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait",
}  # fmt: skip
# Words starting a command at these tokens.
COMMAND_START = {";", "&&", "||", "|", "&", "(", "\n", "{", "!", "then", "do", "else", "elif",
                 "if", "while", "until", "time", "$("}  # fmt: skip
# Programs that start another program: how many words (after their options)
# precede the command they run.
WRAPPERS = {"exec", "nice", "nohup", "setsid", "stdbuf", "sudo", "xargs", "unbuffer", "chrt"}
# What a program runs by itself in the ways this repository uses it.
IMPLIED = {
    # Mininet (testbed/net/mininet_backend.py, mininet/topos.py, `mn --custom`): LinuxBridge
    # switches, TCLink, node shells, pingall.
    "mn": ("mnexec", "ifconfig", "brctl", "ethtool", "ip", "tc", "sysctl", "ping", "bash"),
    "mininet": ("mnexec", "ifconfig", "brctl", "ethtool", "ip", "tc", "sysctl", "ping", "bash"),
    # virtme-ng boots the guest with QEMU and needs udev in it.
    "vng": ("qemu-system-x86_64", "udevadm", "busybox", "file", "modprobe", "depmod"),
    # DKMS builds with make and the kernel's compiler.
    "dkms": ("make", "gcc"),
    # a kernel build (Kbuild): compiler, bc, pahole for BTF, objtool's deps
    "kbuild": ("make", "gcc", "ld", "bc", "pahole", "xz", "zstd"),
}


# --------------------------------------------------------------------------- shell


def _strip_heredocs(text: str) -> str:
    """Drop here-document bodies (their lines are not shell)."""
    out: list[str] = []
    end: list[str] = []
    for line in text.splitlines():
        if end:
            if line.strip() == end[0]:
                end.pop(0)
            continue
        out.append(line)
        for m in re.finditer(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1", line):
            end.append(m.group(2))
    return "\n".join(out)


def _tokens(text: str) -> Iterator[str]:
    """Shell words and operators; command substitutions yield ``$(`` ... ``)``."""
    i, n = 0, len(text)
    word: list[str] = []

    def flush() -> Iterator[str]:
        if word:
            yield "".join(word)
            word.clear()

    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            if text[i + 1] != "\n":
                word.append(text[i + 1])
            i += 2
            continue
        if c == "#" and not word:
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            word.append(text[i + 1 : j])
            i = j + 1
            continue
        if c == '"':
            j = i + 1
            inner: list[str] = []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    inner.append(text[j + 1])
                    j += 2
                    continue
                if text.startswith("$(", j) and not text.startswith("$((", j):
                    k = _match_paren(text, j + 1)
                    yield from flush()
                    yield "$("
                    yield from _tokens(text[j + 2 : k])
                    yield ")"
                    inner.append("$SUB")
                    j = k + 1
                    continue
                inner.append(text[j])
                j += 1
            word.append("".join(inner))
            i = j + 1
            continue
        if text.startswith("$((", i):
            k = _match_paren(text, i + 1)
            word.append("$ARITH")
            i = k + 1
            continue
        if text.startswith("$(", i) or c == "`":
            # a command substitution, $(...) or `...`
            if c == "`":
                k = text.find("`", i + 1)
                k, body = (n if k < 0 else k), i + 1
            else:
                k, body = _match_paren(text, i + 1), i + 2
            yield from flush()
            yield "$("
            yield from _tokens(text[body:k])
            yield ")"
            i = k + 1
            continue
        if text.startswith("${", i):
            k = _match_paren(text, i + 1, "{}")
            inner = text[i + 2 : k]
            if "$(" in inner or "`" in inner:
                # ${VAR:-$(cmd)}: the command substitution runs
                yield from flush()
                yield from (t for t in _tokens(inner) if t != "\n")
                yield ";"
            word.append("$VAR")
            i = k + 1
            continue
        if c in " \t":
            yield from flush()
            i += 1
            continue
        if c == "\n":
            yield from flush()
            yield "\n"
            i += 1
            continue
        if c == "(" and word and word[-1] == "=":
            # an array assignment: its words are data
            k = _match_paren(text, i)
            word.append("$ARRAY")
            i = k + 1
            continue
        op = next((o for o in (";;", "&&", "||", ";", "|", "&", "(", ")") if text.startswith(o, i)),
                  None)  # fmt: skip
        if op:
            yield from flush()
            yield op
            i += len(op)
            continue
        if c in "<>":
            # a redirection: the operator, then its target word (dropped)
            yield from flush()
            j = i
            while j < n and text[j] in "<>&":
                j += 1
            while j < n and text[j] in " \t":
                j += 1
            k = j
            while k < n and text[k] not in " \t\n;|&()":
                k += 1
            yield "<redir>"
            i = k
            continue
        word.append(c)
        i += 1
    yield from flush()


def _match_paren(text: str, open_at: int, pair: str = "()") -> int:
    depth = 0
    for k in range(open_at, len(text)):
        if text[k] == pair[0]:
            depth += 1
        elif text[k] == pair[1]:
            depth -= 1
            if depth == 0:
                return k
    return len(text)


def program_name(word: str) -> str | None:
    """The program a command word names, or None (a variable, our own script)."""
    m = SYSTEM_PATH.match(word)
    if m:
        return m.group(1)
    if "$" in word or "/" in word or not PROGRAM.match(word):
        return None
    return word


def _after_wrapper(prog: str, args: list[str]) -> list[str] | None:
    """The argv a wrapper program runs, or None if ``prog`` is not one."""
    if prog == "ip":
        # ip [-n NS] netns exec NS CMD...
        if len(args) >= 3 and args[0] == "netns" and args[1] == "exec":
            return args[3:]
        return None
    if prog in ("bash", "sh") and len(args) >= 2 and args[0] == "-c":
        return ["<shell>", args[1]]
    if prog == "timeout":
        rest = args[:]
        while rest and rest[0].startswith("-"):
            opt = rest.pop(0)
            if opt in ("-k", "-s", "--kill-after", "--signal") and rest:
                rest.pop(0)
        return rest[1:]
    if prog == "env":
        rest = args[:]
        while rest and (rest[0].startswith("-") or ASSIGNMENT.match(rest[0])):
            rest.pop(0)
        return rest
    if prog == "runuser" or prog == "nsenter" or prog == "unshare":
        if "--" in args:
            return args[args.index("--") + 1 :]
        rest = args[:]
        while rest and rest[0].startswith("-"):
            opt = rest.pop(0)
            if opt in ("-u", "-g", "-t", "-n", "-m") and rest and not rest[0].startswith("-"):
                rest.pop(0)
        return rest
    if prog == "command":
        return args[1:] if args[:1] == ["-v"] else args
    if prog == "chroot":
        return args[1:]
    if prog in WRAPPERS:
        rest = args[:]
        while rest and rest[0].startswith("-"):
            opt = rest.pop(0)
            if opt in ("-n", "-u", "-I", "-P") and rest:
                rest.pop(0)
        if prog == "chrt" and rest:
            rest.pop(0)
        return rest
    return None


def argv_programs(argv: list[str | None]) -> set[str]:
    """Programs started by an argv (None marks a word not known statically)."""
    found: set[str] = set()
    while argv and argv[0] is not None:
        prog = program_name(argv[0])
        if prog is None:
            # our own script (testbed/vm -- CMD...): the command behind "--"
            if "--" in argv:
                argv = argv[argv.index("--") + 1 :]
                continue
            return found
        found.add(prog)
        found.update(IMPLIED.get(prog, ()))
        if prog == "make" and any(a and a.startswith("M=") for a in argv):
            found.update(IMPLIED["kbuild"])
        args = argv[1:]
        if None in args:
            known = [a for a in args if a is not None]
            # a wrapper with an unknown namespace name: ip netns exec <ns> CMD
            if prog == "ip" and known[:2] == ["netns", "exec"]:
                i = args.index(None)
                rest = args[i + 1 :]
                argv = rest
                continue
        inner = _after_wrapper(prog, [a if a is not None else "$X" for a in args])
        if inner is None:
            return found
        if inner[:1] == ["<shell>"]:
            found |= shell_programs(inner[1])
            return found
        argv = list(inner)
    return found


SOURCED = re.compile(r"^\s*(?:\.|source)\s+[\"']?(?:\S*/)?([\w.-]+\.sh)[\"']?\s*$", re.M)


def sourced_files(text: str) -> set[str]:
    """Base names of the shell files a script sources (``. dir/lib.sh``)."""
    return set(SOURCED.findall(text))


def shell_functions(text: str) -> set[str]:
    """The shell functions a script defines (``name()`` or ``function name``)."""
    toks = list(_tokens(_strip_heredocs(text)))
    functions = {toks[i] for i in range(len(toks) - 2) if toks[i + 1] == "(" and toks[i + 2] == ")"}
    return functions | {toks[i + 1] for i in range(len(toks) - 1) if toks[i] == "function"}


def shell_programs(text: str, sourced_functions: Iterable[str] = ()) -> set[str]:
    """Programs run by a shell script (or a shell command line); the
    functions of the files it sources are ``sourced_functions``."""
    functions = shell_functions(text) | set(sourced_functions)
    text = _strip_heredocs(text)
    # variables naming a program: IP=${IP:-/usr/sbin/ip}, PY=/usr/bin/python3
    variables = {}
    for m in re.finditer(r"^\s*([A-Za-z_]\w*)=(?:\$\{\1:-([^}\s]+)\}|([^\s;$'\"()]+))\s*$",
                         text, re.M):  # fmt: skip
        variables["$" + m.group(1)] = m.group(2) or m.group(3)
    toks = [variables.get(t, t) for t in _tokens(text)]
    found: set[str] = set()
    start = True
    case_pattern = False
    skip_until_do = False
    i = 0
    while i < len(toks):
        t = toks[i]
        if case_pattern:
            if t == "esac":
                case_pattern = False
                start = False
            elif t == ")":
                case_pattern = False
                start = True
            i += 1
            continue
        if skip_until_do:
            if t == "do":
                skip_until_do = False
                start = True
            i += 1
            continue
        if t == ";;":
            case_pattern = True
            i += 1
            continue
        if t == "case":
            # case WORD in PATTERN) ...
            while i < len(toks) and toks[i] != "in":
                i += 1
            case_pattern = True
            i += 1
            continue
        if t in ("for", "select"):
            skip_until_do = True
            i += 1
            continue
        if t in COMMAND_START:
            start = True
            i += 1
            continue
        if t == ")":
            start = False
            i += 1
            continue
        if not start:
            i += 1
            continue
        if t == "<redir>" or ASSIGNMENT.match(t):
            i += 1
            continue
        if t in ("then", "do", "else", "{", "!", "time"):
            i += 1
            continue
        # a command: its words up to the next operator
        words = []
        j = i
        while j < len(toks) and toks[j] not in COMMAND_START and toks[j] not in (")", ";;"):
            if toks[j] != "<redir>":
                words.append(toks[j])
            j += 1
        start = False
        i += 1
        if not words or words[0] in SHELL_KEYWORDS:
            continue
        if words[0] in functions:
            continue
        if words[0] in SHELL_BUILTINS:
            if words[0] in ("exec", "eval", "builtin") or words[0] == "command":
                found |= argv_programs(list(words[1:]))
            continue
        if words[0] == "command":
            found |= argv_programs(list(_after_wrapper("command", words[1:]) or []))
            continue
        found |= argv_programs(list(words))
    return found - SHELL_BUILTINS - SHELL_KEYWORDS - functions


def _make_expand(line: str) -> str:
    """A recipe line with make's own $(...) references and function calls
    replaced by a placeholder ($(MAKE) and $(PY) by what they run), and
    make's $$ back to the shell's $."""
    line = line.replace("$$", "\0")
    out, i = [], 0
    while i < len(line):
        if line.startswith("$(", i):
            k = _match_paren(line, i + 1)
            name = line[i + 2 : k]
            out.append({"MAKE": "make", "PY": "python3"}.get(name, "$VAR"))
            i = k + 1
            continue
        out.append(line[i])
        i += 1
    return "".join(out).replace("\0", "$")


def makefile_programs(text: str) -> set[str]:
    """Programs in a Makefile's recipes (lines starting with a tab)."""
    recipe: list[str] = []
    for line in text.replace("\\\n", " ").splitlines():
        if line.startswith("\t"):
            recipe.append(_make_expand(re.sub(r"^\t[@+-]*", "", line)))
    return shell_programs("\n".join(recipe))


def markdown_programs(text: str) -> set[str]:
    """Programs in a Markdown file's ``sh`` blocks (not those marked untested)."""
    found: set[str] = set()
    untested = False
    for m in re.finditer(r"(<!--[^>]*-->\s*)?```(?:sh|bash|console)\n(.*?)```", text, re.S):
        untested = bool(m.group(1) and "untested" in m.group(1))
        if not untested:
            found |= shell_programs(m.group(2))
    return found


# -------------------------------------------------------------------------- python

EXEC_CALLS = {
    # subprocess, os
    "run", "Popen", "check_output", "check_call", "call", "system", "popen", "execvp",
    "execv", "execlp", "spawnvp",
    # ours: netpath.sh, mn._run, harness._first_line, modcycle.run, conftest.run_in_vm,
    # install_walkthrough.sh / ok, jersey_check helpers
    "sh", "_run", "_first_line", "run_in_vm", "ok", "cmd", "run_cmd",
    # Mininet nodes and utilities
    "sendCmd", "quietRun", "errRun", "pexec",
}  # fmt: skip
ARGV_NAMES = re.compile(r"(^|_)(argv|cmd|command|ps)$")


class _PyScan(ast.NodeVisitor):
    def __init__(self, consts: dict[str, str]):
        self.consts = consts
        self.found: set[str] = set()
        # per function: the values of its local names assigned once
        self.scopes: list[dict[str, ast.expr]] = []

    def _local(self, name: str) -> ast.expr | None:
        return self.scopes[-1].get(name) if self.scopes else None

    def _str(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            local = self._local(node.id)
            if local is not None:
                return self._str(local)
            return self.consts.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self._str(node.left), self._str(node.right)
            return None if left is None or right is None else left + right
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                else:
                    parts.append("$X")
            return "".join(parts)
        return None

    def _argv(self, node: ast.AST) -> list[str | None] | None:
        """A list/tuple literal (or list + list) as an argv; None if not one."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self._argv(node.left)
            right = self._argv(node.right)
            if left is None:
                return right
            return left + (right or [None])
        if isinstance(node, ast.Name):
            local = self._local(node.id)
            return None if local is None else self._argv(local)
        if isinstance(node, ast.List | ast.Tuple):
            out: list[str | None] = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    out.append(None)
                else:
                    out.append(self._str(e))
            return out
        return None

    def _argv_or_shell(self, args: list[ast.expr]) -> None:
        if not args:
            return
        first = args[0]
        argv = self._argv(first)
        if argv is not None:
            self._take_argv(argv)
            return
        s = self._str(first)
        if s is None:
            # helpers taking (node, cmd): try the second argument
            if len(args) >= 2:
                self._argv_or_shell(args[1:])
            return
        # sh("sysctl", "-w", ...): positional words are the argv
        if len(args) > 1 and (" " not in s and PROGRAM.match(s) or SYSTEM_PATH.match(s)):
            self._take_argv([self._str(a) for a in args])
            return
        if re.search(r"[\s;|&]", s):
            self.found |= shell_programs(s)
        else:
            self._take_argv([s])

    def _take_argv(self, argv: list[str | None]) -> None:
        if argv and argv[0] is not None and program_name(argv[0]) is not None:
            self.found |= argv_programs(argv)
        else:
            # [*vm, "--", CMD...], [python, "-m", ...]: look behind a "--"
            if "--" in argv:
                self._take_argv(argv[argv.index("--") + 1 :])

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if name == "which" and node.args:
            s = self._str(node.args[0])
            if s and program_name(s):
                self.found.add(s)
        elif name in EXEC_CALLS:
            self._argv_or_shell(list(node.args))
        self.generic_visit(node)

    def _visit_assign(self, targets: list[ast.expr], value: ast.expr | None) -> None:
        for t in targets:
            tname = (
                t.attr if isinstance(t, ast.Attribute) else t.id if isinstance(t, ast.Name) else ""
            )
            if value is not None and ARGV_NAMES.search(tname):
                argv = self._argv(value)
                if argv is not None:
                    self._take_argv(argv)
                elif (s := self._str(value)) is not None and re.search(r"\s", s):
                    self.found |= shell_programs(s)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._visit_assign(node.targets, node.value)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._visit_assign([node.target], node.value)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        assigned: dict[str, list[ast.expr]] = {}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                t = sub.targets[0]
                if isinstance(t, ast.Name):
                    assigned.setdefault(t.id, []).append(sub.value)
        self.scopes.append({k: v[0] for k, v in assigned.items() if len(v) == 1})
        if re.search(r"cmd$", node.name):
            # helpers that build one shell line: offload_cmd() -> "ethtool -K ..."
            for sub in ast.walk(node):
                if isinstance(sub, ast.Return) and sub.value is not None:
                    s = self._str(sub.value)
                    if s is not None:
                        self.found |= shell_programs(s)
        self.generic_visit(node)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node: ast.Import) -> None:
        if any(a.name.split(".")[0] == "mininet" for a in node.names):
            self.found.update(IMPLIED["mininet"])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if (node.module or "").split(".")[0] == "mininet" and node.level == 0:
            self.found.update(IMPLIED["mininet"])


def _module_constants(tree: ast.Module) -> dict[str, str]:
    """NAME = "prog" (or a conditional of strings): the program's name."""
    consts: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            t = node.targets[0]
            if not isinstance(t, ast.Name):
                continue
            v = node.value
            if isinstance(v, ast.IfExp):
                v = v.body
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                consts[t.id] = v.value
    return consts


def python_programs(source: str, imported: dict[str, str] | None = None) -> set[str]:
    tree = ast.parse(source)
    consts = dict(imported or {})
    consts.update(_module_constants(tree))
    scan = _PyScan(consts)
    scan.visit(tree)
    return scan.found


# ------------------------------------------------------------------------ the tree

# Names our Python modules export for programs (netpath.IP, netpath.TC).
EXPORTED = {"IP": "ip", "TC": "tc"}


def _shebang_shell(p: Path) -> bool:
    if p.suffix:
        return False
    with p.open("rb") as f:
        first = f.readline(80)
    return first.startswith(b"#!") and (b"sh" in first.split(b"/")[-1])


def _candidates(top: Path) -> list[Path]:
    """The repository's files, tracked or new, that git does not ignore.

    Ignored files (out/, build/, .venv/, a run's scratch scripts) are no part
    of what a fresh clone starts; without git, every file but those trees.
    """
    try:
        listed = subprocess.run(
            ["git", "-C", str(top), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, check=True,
        ).stdout  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        skip = {".venv", "build", ".git", "out", "node_modules"}
        return [p for p in sorted(top.rglob("*"))
                if not any(part in skip for part in p.relative_to(top).parts)]  # fmt: skip
    return sorted({top / os.fsdecode(f) for f in listed.split(b"\0") if f})


def sources(top: Path) -> Iterator[tuple[Path, str]]:
    """(file, kind) of every file that can start a program."""
    for p in _candidates(top):
        if not p.is_file():
            continue
        if p.suffix == ".py":
            yield p, "python"
        elif p.suffix == ".sh" or p.name == "dkms.conf" or _shebang_shell(p):
            yield p, "shell"
        elif p.name == "Makefile":
            yield p, "make"
        elif p.name == "README.md":
            yield p, "markdown"


def scan(top: Path) -> dict[str, list[str]]:
    """{program: [files that start it]} for the repository at ``top``."""
    out: dict[str, list[str]] = {}
    files = [(p, kind, p.read_text()) for p, kind in sources(top)]
    libraries = {p.name: shell_functions(text) for p, kind, text in files if kind == "shell"}
    for p, kind, text in files:
        if kind == "python":
            progs = python_programs(text, EXPORTED)
        elif kind == "shell":
            lib = [f for name in sourced_files(text) for f in libraries.get(name, ())]
            progs = shell_programs(text, lib)
        elif kind == "make":
            progs = makefile_programs(text)
        else:
            progs = markdown_programs(text)
        for prog in with_implied(progs):
            out.setdefault(prog, []).append(str(p.relative_to(top)))
    return out


def with_implied(progs: Iterable[str]) -> set[str]:
    """``progs`` and, transitively, what they run by themselves (IMPLIED)."""
    todo, seen = list(progs), set()
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.add(p)
            todo.extend(IMPLIED.get(p, ()))
    return seen
