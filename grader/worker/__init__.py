"""A worker process: grades one submission after another (local processes or Dask workers) with nbgrader's
autograde, whose execution (``execute.py``) runs each notebook under the guard with the trusted kernel."""
