"""nbgrader settings shared by every grader command (instructor sources -> student notebooks)."""

import os

c = get_config()  # type: ignore[name-defined]  # noqa: F821  (nbgrader's config loader provides get_config)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

c.CourseDirectory.course_id = "tf-core"
c.CourseDirectory.source_directory = os.path.join(REPO, "solutions")
c.CourseDirectory.release_directory = os.path.join(REPO, "course")

# Library log lines on stderr (TensorFlow's C++ logging) must not zero a passing test cell, nor make Validate
# report a right answer as failed: nbgrader's kernels get a client that drops them line by line (validate has no
# other place for it), and IgnorePattern (it needs both settings) is a plain autograde's second net;
# `python -m grader autograde` uses a line-by-line equivalent (grader/worker/preprocessors.py).
import sys  # noqa: E402

sys.path.insert(0, REPO)
from grader.settings.lognoise import LOG_NOISE_PATTERN  # noqa: E402

c.AsyncKernelManager.client_class = "grader.settings.quietclient.QuietKernelClient"
c.IgnorePattern.pattern = LOG_NOISE_PATTERN
c.IgnorePattern.enabled = True
