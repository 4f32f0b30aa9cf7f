"""What the instructor types: the command line (``python -m grader``) and each command's work, run in the
instructor's process (release, collect, autograde, regrade, watch, the demo)."""
