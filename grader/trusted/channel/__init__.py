"""The data-only channel between the student's kernel and the trusted kernel, in three modules:

- ``codec.py``: values as JSON data (numbers, strings, containers, arrays, tensors, Variables, minitf graphs),
  rebuilt on the other side from that data alone; used by both sides.
- ``student.py``: runs in the student's kernel and answers the trusted kernel's requests (its ``REQUESTS`` table
  lists every one); objects that are not data stay there, named by number.
- ``trusted.py``: runs in the trusted kernel; ``bind`` puts the student's values into a test's namespace, with
  stand-ins whose uses become requests, and lends instructor objects to the student's code.

Nothing of the grader can be imported in a kernel, so the grader sends the source of the codec and of one side
(``install_code``); the kernel keeps them as the package ``__grader_channel__``, where the sides' relative
imports find the codec.  The grader runs ``STUDENT_SIDE``'s ``answer`` and ``TRUSTED_SIDE``'s ``bind`` there.
"""

from __future__ import annotations

from pathlib import Path

#: the channel's package inside a kernel (a private name, as the guard's)
KERNEL_PACKAGE = "__grader_channel__"
STUDENT_SIDE = f"{KERNEL_PACKAGE}.student"
TRUSTED_SIDE = f"{KERNEL_PACKAGE}.trusted"


def install_code(side: str) -> str:
    """Code that loads the codec and one side (``"student"`` or ``"trusted"``) into a kernel, from their source."""
    folder = Path(__file__).parent
    sources = {name: (folder / f"{name}.py").read_text(encoding="utf-8") for name in ("codec", side)}
    return (
        "import sys as _s, types as _t\n"
        f"_p = _s.modules[{KERNEL_PACKAGE!r}] = _t.ModuleType({KERNEL_PACKAGE!r})\n"
        "_p.__path__ = []\n"
        f"for _n, _src in {sources!r}.items():\n"
        f"    _m = _s.modules[{KERNEL_PACKAGE!r} + '.' + _n] = _t.ModuleType({KERNEL_PACKAGE!r} + '.' + _n)\n"
        f"    _m.__package__ = {KERNEL_PACKAGE!r}\n"
        "    setattr(_p, _n, _m)\n"
        "    exec(compile(_src, '<grader-channel-' + _n + '>', 'exec'), _m.__dict__)\n"
        "del _s, _t, _p, _n, _src, _m\n"
    )
