"""The trusted side: the data-only channel (``channel/``), the plan of what the trusted kernel runs, the trusted
kernel and the graded tests it runs, the rules that keep test cells verdict-safe."""
