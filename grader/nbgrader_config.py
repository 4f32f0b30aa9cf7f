"""nbgrader settings shared by every grader command (instructor sources -> student notebooks)."""

import os

c = get_config()  # noqa: F821  (nbgrader's config loader provides get_config)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

c.CourseDirectory.course_id = "tf-core"
c.CourseDirectory.source_directory = os.path.join(REPO, "solutions")
c.CourseDirectory.release_directory = os.path.join(REPO, "course")
