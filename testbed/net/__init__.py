"""Paths: links, queues and loss (path.py), the papers' topologies (topologies.py, the one
source of them), the netns and Mininet builders, channel models (fading.py, redmodel.py)."""
