"""From per-point JSON to numbers: metrics (metrics.py), then tables, plots and report.md
(report.py)."""
