"""jersey testbed: VM runner, path emulation, experiments and analysis."""
