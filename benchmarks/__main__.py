"""`python -m benchmarks`: every benchmark, printed as timings and ratios (never asserted).

`python -m benchmarks --write` runs them all and writes docs/measurements.md, the one file of measured figures
(`--write --only benchmarks.chain,benchmarks.steps` measures those sections again and puts them in place)."""

import sys
import time

from benchmarks import chain, conv, dispatch, graphs, jit, keras_fit, kernels, lessons, measurements, steps

if __name__ == "__main__" and "--write" in sys.argv and "--only" in sys.argv:
    measurements.rewrite_sections(sys.argv[sys.argv.index("--only") + 1].split(","))
elif __name__ == "__main__" and "--write" in sys.argv:
    measurements.write()
elif __name__ == "__main__":
    if "--cpu" in sys.argv:
        chain.TIMER[0] = time.process_time
    chain.main()
    print()
    dispatch.main()
    print()
    steps.main()
    print()
    graphs.main()
    print()
    jit.main()
    print()
    keras_fit.main()
    print()
    conv.main()
    if "--kernels" in sys.argv:
        print()
        kernels.main()
    if "--lessons" in sys.argv:
        print()
        lessons.main()
