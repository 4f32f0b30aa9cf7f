"""Where student code runs and how its kernels live: the sandbox user and limits (``prepare``), the launcher,
the kernel template and the pool of warm kernels, the in-kernel guard, the kernels started ahead, the client of
the student's kernel.  ``launch.py``, ``kernel_template.py`` and ``kernel_guard.py`` run outside the grader's
process (as scripts, or as source sent into a kernel) and import nothing of the grader."""
