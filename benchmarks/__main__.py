"""`python -m benchmarks`: every benchmark, printed as timings and ratios (never asserted)."""

import sys

from benchmarks import chain, graphs, jit, kernels, lessons

if __name__ == "__main__":
    chain.main()
    print()
    graphs.main()
    print()
    jit.main()
    if "--kernels" in sys.argv:
        print()
        kernels.main()
    if "--lessons" in sys.argv:
        print()
        lessons.main()
