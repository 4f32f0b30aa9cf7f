"""The instructor's grading tool around nbgrader: release, check, collect, autograde, feedback, report."""
