"""nbgrader's settings: course-wide (``nbgrader_config.py``), per run, per term; the log lines filtered out."""
