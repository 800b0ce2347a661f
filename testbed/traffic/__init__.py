"""Traffic on a path: iperf3 flows (flows.py) and cross traffic (cross.py)."""
