"""Running experiments: scenario files -> points (scenario.py), a point -> a trial on a path
(trial.py), every point of a scenario on the target kernel -> one JSON each (harness.py)."""
