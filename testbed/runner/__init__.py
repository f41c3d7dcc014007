"""ADWISER testbed harness: namespaces topology, processes, experiments, report."""
