"""The halves of the VM tests that run inside the guest (``python -m tests.guest.NAME``);
the tests in tests/test_*_vm.py start them through testbed/vm and assert on their JSON."""
