"""`python -m benchmarks`: run every benchmark and print a table of timings and ratios."""

from benchmarks.chain import main

if __name__ == "__main__":
    main()
