"""AutoGraph: `if`, `while` and `for` on tensors rewritten into graph control flow (converter.py, transform.py,
operators.py; undefined.py for variables one path leaves unassigned)."""
