"""Benchmarks: minitf next to NumPy (the floor) and TensorFlow, in one run, reported as ratios."""
