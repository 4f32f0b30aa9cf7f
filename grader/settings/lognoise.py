"""Stderr lines that libraries print and that say nothing about a student's code (kept dependency-free so
grader/settings/nbgrader_config.py can import it for plain ``nbgrader validate`` and ``nbgrader autograde`` too)."""

import re

#: TensorFlow/absl C++ logs ("2026-01-01 12:00:00.000000: I tensorflow/...", "I0000 00:00:00.000000  123
#: cpu_feature_guard.cc:210] ..."), absl's notice before its logging starts, and TensorFlow's CPU hint.
LOG_NOISE_PATTERN = (
    r"(?m)^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: [IWE] |[IWE]\d{4} [\d:]+\.\d+ +\d+ [\w.]+:\d+\]|"
    r"WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR|"
    r"To enable the following instructions: .* in other operations, rebuild TensorFlow)"
)


def without_log_noise(text: str, pattern: str = LOG_NOISE_PATTERN) -> str:
    """Stderr text without its log lines, line by line: a real warning printed beside one stays."""
    noise = re.compile(pattern)
    return "".join(line for line in text.splitlines(keepends=True) if not noise.search(line))
