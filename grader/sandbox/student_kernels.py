"""The student's kernel of a notebook: a new one, or the spare started for it while the previous notebook ran
(its guard and channel already in), each with a socket folder of its own."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

from nbclient.util import ensure_async, run_sync
from nbgrader.preprocessors import Execute

from grader.sandbox import spares
from grader.sandbox.guard import guard_install, guard_modules
from grader.sandbox.kernel_client import CappedKernelClient
from grader.sandbox.pool import folder_digest, following, kill_launcher, socket_folder
from grader.trusted.channel import install_code
from grader.trusted.plan import nbgrader_meta, source_notebook

#: code that loads the student's side of the channel into the student's kernel (it answers values larger than
#: MAX_REPLY_BYTES with an error, and the grader's sockets refuse larger messages unread)
STUDENT_CHANNEL = install_code("student")


class StudentKernels(Execute):
    """The student's kernel for each run of a notebook's cells (``GuardedExecute`` uses it)."""

    kernel_name: str  # nbclient's setting; the notebook's kernelspec when empty

    def _student_manager(self, sockets: Path | None):
        self.kernel_name = self.kernel_name or self.nb.metadata.get("kernelspec", {}).get("name", "")
        km = self.kernel_manager_class(
            kernel_name=self.kernel_name,
            config=self.config,
            **({"ip": str(sockets / "k")} if sockets is not None else {}),
        )
        km.client_factory = CappedKernelClient  # the student's kernel's messages are bounded before decoding
        return km

    @contextlib.contextmanager
    def _student_kernel(self):
        """The student's kernel for this notebook (or after a restart): the spare started for it while the
        previous notebook ran if its guard matches, else a new one, each with a socket folder of its own; then
        the spare for this submission's next notebook.  It is killed at the end (never used again)."""
        from grader.worker import preprocessors

        modules = self._guard_modules() if self.guard else None
        spare = self._take_student_spare(modules)
        if spare is None:
            sockets = socket_folder(preprocessors.ACTIVE_SANDBOX, "student")
            self.km = self._student_manager(sockets)
            try:
                self.start_new_kernel()
                self.start_new_kernel_client()
            except BaseException:
                if sockets is not None:
                    shutil.rmtree(sockets, ignore_errors=True)
                raise
        else:
            spares.EARLY_KERNELS += 1
            sockets, self.km, self.kc = spare.sockets, spare.km, spare.kc
            self.kc.allow_stdin = False
        self._prepared = spare is not None
        if self.warm and self.guard and self.trusted_kernel and not spares.STUDENT_SPARES:  # its guard and channel
            self._start_student_spare()
        try:
            yield
        finally:
            kill_launcher(self.km)
            self._cleanup_kernel()
            if sockets is not None:
                shutil.rmtree(sockets, ignore_errors=True)

    def _take_student_spare(self, modules: list[str] | None) -> spares.StudentSpare | None:
        """The spare of this submission whose guard imported exactly what this notebook's guard imports."""
        folder = str(self.resources.get("metadata", {}).get("path", ""))
        here = self.resources.get("nbgrader", {}).get("notebook")
        for spare in list(spares.STUDENT_SPARES):
            if spare.folder != folder or spare.modules == modules or spare.notebook == here:
                spares.STUDENT_SPARES.remove(spare)  # another submission's (its grading stopped early) is never used
                if (
                    spare.folder == folder
                    and spare.modules == modules
                    and spare.ready(max(self.startup_timeout, self.timeout or 600))
                    and spare.digest == folder_digest(folder)
                ):
                    return spare
                spare.close()
        return None

    def _start_student_spare(self) -> None:
        """Start the student's kernel for this submission's next notebook (after its last: for the next
        submission's first, when the worker knows it) and send it that notebook's guard."""
        from nbgrader.coursedir import CourseDirectory

        from grader.worker import preprocessors

        info = self.resources.get("nbgrader", {})
        course = CourseDirectory(config=self.config)
        submitted = Path(
            course.format_path(course.submitted_directory, info.get("student", ""), info.get("assignment", ""))
        )
        upcoming = following([path.stem for path in submitted.glob("*.ipynb")], info.get("notebook", ""))
        source = source_notebook(self.config, self.resources)
        folder = str(self.resources.get("metadata", {}).get("path", ""))
        if source is None:
            return
        if upcoming is None:
            after = spares.NEXT_SUBMISSION() if spares.NEXT_SUBMISSION is not None else None
            if after is None or after.assignment != info.get("assignment"):
                return
            try:
                spares.stage_grading_folder(after.submitted, source.parent, after.folder, list(course.ignore))
            except OSError as error:
                self.log.warning("could not lay out the next submission's folder early: %s", error)
                return
            upcoming, folder = after.notebook, str(after.folder)
        known = (
            self._upcoming[1]
            if self._upcoming and self._upcoming[0] == upcoming
            else self._read_gradebook(self.resources, upcoming)
        )
        if known is None:
            return
        import nbformat

        cells = nbformat.read(source.with_name(f"{upcoming}.ipynb"), as_version=4).cells
        modules = guard_modules(
            [
                known[1][meta["grade_id"]]
                for cell in cells
                if cell.cell_type == "code" and (meta := nbgrader_meta(cell)).get("grade_id") in known[0]
            ]
        )
        digest = folder_digest(folder)
        if digest is None:
            return
        sockets = socket_folder(preprocessors.ACTIVE_SANDBOX, "student")
        km = self._student_manager(sockets)
        try:
            kc, sent = self._send_ahead(km, folder, modules)
        except Exception as error:  # no spare: the next notebook starts its kernel the usual way
            self.log.warning("could not start the next notebook's kernel early: %s", error)
            with contextlib.suppress(Exception):
                run_sync(km.shutdown_kernel)(now=True)
            if sockets is not None:
                shutil.rmtree(sockets, ignore_errors=True)
            return
        spares.STUDENT_SPARES.append(spares.StudentSpare(km, kc, sockets, folder, upcoming, modules, sent, digest))

    async def _async_send_ahead(self, km, folder: str, modules: list[str]):
        """Start a student's kernel in ``folder`` and queue its guard and channel (it runs them once it is up)."""
        await ensure_async(km.start_kernel(extra_arguments=list(self.extra_arguments), cwd=folder))
        kc = km.client()
        await ensure_async(kc.start_channels())
        sent = [
            kc.execute(guard_install(modules), silent=True, store_history=False, allow_stdin=False),
            kc.execute(STUDENT_CHANNEL, silent=True, store_history=False, allow_stdin=False),
        ]
        return kc, sent

    _send_ahead = run_sync(_async_send_ahead)

    def _install_channel(self) -> None:
        self._silent(STUDENT_CHANNEL)
