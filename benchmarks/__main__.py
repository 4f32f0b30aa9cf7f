"""`python -m benchmarks`: every benchmark, printed as timings and ratios (never asserted)."""

import sys
import time

from benchmarks import chain, graphs, jit, keras_fit, kernels, lessons

if __name__ == "__main__":
    if "--cpu" in sys.argv:
        chain.TIMER[0] = time.process_time
    chain.main()
    print()
    graphs.main()
    print()
    jit.main()
    print()
    keras_fit.main()
    if "--kernels" in sys.argv:
        print()
        kernels.main()
    if "--lessons" in sys.argv:
        print()
        lessons.main()
