"""What a trial records besides its flows: time series (monitors.py), kernel tracepoints
(trace.py) and per-packet ground truth from packet captures (groundtruth.py)."""
