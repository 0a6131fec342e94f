"""Predicted speed of a command: the mapping to the predictor's inputs, the stored predictions a
record reads, and the pick for a reader's target (standard library only)."""
