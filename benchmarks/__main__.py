"""`python -m benchmarks`: every benchmark, printed as timings and ratios (never asserted)."""

import sys

from benchmarks import chain, graphs, kernels, lessons

if __name__ == "__main__":
    chain.main()
    print()
    graphs.main()
    if "--kernels" in sys.argv:
        print()
        kernels.main()
    if "--lessons" in sys.argv:
        print()
        lessons.main()
