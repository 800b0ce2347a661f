"""Acceptance experiments of the modules and qdiscs, each a script run in the VM that writes
its results and a summary (see results/accept/ and results/diffc-newrenolp-balde/)."""
