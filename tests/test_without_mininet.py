"""The host-only tests need no Mininet: collected and run by a Python that cannot import it.

Mininet comes from Debian (python3-mininet) and only the Mininet backend
imports it.  Here a child Python finds ``mininet`` everywhere but where Debian
installed it, like a venv made without ``--system-site-packages``: the
repository's own ``mininet/`` directory (no package, the ``mn --custom``
file) is all it sees.  The tests that need Mininet skip; nothing else may
notice.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import TOP

# Installed before anything else in the child: ``import mininet`` finds no
# Mininet package (the directory of mininet/topos.py is only a namespace).
HIDE_MININET = """
import importlib.machinery, os, sys

class WithoutMininet:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "mininet":
            return None
        bare = [p for p in sys.path if not os.path.exists(os.path.join(p, name, "__init__.py"))]
        spec = importlib.machinery.PathFinder.find_spec(name, bare)
        if spec is None:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return spec

sys.meta_path.insert(0, WithoutMininet)
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def pytest_without_mininet(*args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-c", HIDE_MININET, "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(argv, cwd=TOP, capture_output=True, text=True, timeout=600)


def test_the_child_has_no_mininet() -> None:
    probe = HIDE_MININET.replace(
        "import pytest\nsys.exit(pytest.main(sys.argv[1:]))",
        "from testbed.run import harness\nprint(harness.versions()['mininet'])\nimport mininet.net",
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], cwd=TOP, capture_output=True, text=True, timeout=60
    )
    assert proc.stdout.strip() == "unavailable", proc.stdout + proc.stderr
    assert "No module named 'mininet.net'" in proc.stderr, proc.stderr


def test_host_only_tests_collect_without_mininet() -> None:
    proc = pytest_without_mininet("--collect-only", "-m", "not vm", "tests")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "error" not in proc.stdout.lower().splitlines()[-1], proc.stdout[-3000:]


def test_testbed_tests_pass_without_mininet() -> None:
    proc = pytest_without_mininet(
        "-m", "not vm", "tests/test_harness_unit.py", "tests/test_testbed_unit.py"
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "skipped" in proc.stdout.splitlines()[-1], proc.stdout[-1000:]  # the Mininet ones
