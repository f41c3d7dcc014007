"""Aggregation-target policy (000 §VI, 001 §5): the loops, the bottleneck classifier, their Redis runner."""
