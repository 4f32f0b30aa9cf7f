"""What a student does in JupyterLab, as Playwright actions: menus, the file browser, cells, dialogs.

Every wait is on something the page shows (a prompt number, an output, a dialog), never a fixed sleep:
the machine that runs this is small and busy, so only the timeouts are generous.
"""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

ERROR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
TEXT_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"]'
EXECUTED_PROMPT = re.compile(r"^\[\d+\]:$")


def exact(text: str) -> re.Pattern[str]:
    """A pattern that matches the whole (trimmed) text of an element, so that "Run" does not match "Run All"."""
    return re.compile(rf"^\s*{re.escape(text)}\s*$")


class LabPage:
    """One browser tab on a running JupyterLab."""

    def __init__(self, page: Page) -> None:
        self.page = page

    # --- the application -------------------------------------------------------------------------------------

    def open_lab(self, url: str) -> None:
        """Load JupyterLab with a fresh workspace and wait for the file browser."""
        self.page.goto(url)
        expect(self.page.locator(".jp-DirListing-item").first).to_be_visible()

    def menu(self, *labels: str) -> None:
        """Click through the main menu, e.g. menu("Run", "Run All Cells")."""
        top, *entries = labels
        self.page.locator("#jp-MainMenu .lm-MenuBar-itemLabel", has_text=exact(top)).click()
        for label in entries:
            self.page.locator(".lm-Menu:visible .lm-Menu-itemLabel", has_text=exact(label)).click()

    def accept_dialog(self, title: str) -> Locator:
        """Wait for a dialog with this title and press its default (accept) button; returns the dialog."""
        dialog = self.page.locator(".jp-Dialog").filter(has=self.page.locator(".jp-Dialog-header", has_text=title))
        expect(dialog).to_be_visible()
        dialog.locator(".jp-Dialog-button.jp-mod-accept").click()
        expect(dialog).to_have_count(0)
        return dialog

    # --- the file browser ------------------------------------------------------------------------------------

    def file_browser_item(self, name: str) -> Locator:
        listing = self.page.locator("#filebrowser .jp-DirListing-item")
        return listing.filter(has=self.page.locator(".jp-DirListing-itemText", has_text=exact(name)))

    def open_from_file_browser(self, path: str) -> Locator:
        """Double-click through the folders of `path` from the root and open the notebook; returns its panel."""
        self.page.locator("#filebrowser .jp-BreadCrumbs-home").click()
        for name in path.split("/"):
            item = self.file_browser_item(name)
            expect(item).to_have_count(1)
            item.dblclick()
        tab = self.page.locator("#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current")
        expect(tab).to_contain_text(path.rsplit("/", 1)[-1])
        notebook = self.notebook()
        expect(notebook.locator(".jp-Cell").first).to_be_visible()
        self.wait_until_kernel_idle()
        return notebook

    # --- the open notebook -----------------------------------------------------------------------------------

    def notebook(self) -> Locator:
        """The notebook in the tab in front."""
        return self.page.locator(".jp-NotebookPanel:visible")

    def cell(self, index: int) -> Locator:
        return self.notebook().locator(".jp-Cell").nth(index)

    def prompt(self, index: int) -> Locator:
        return self.cell(index).locator(".jp-InputArea-prompt")

    def wait_until_kernel_idle(self) -> None:
        expect(self.page.locator("#jp-main-statusbar")).to_contain_text(re.compile(r"\|\s*Idle"))

    def replace_cell_source(self, index: int, source: str) -> None:
        """Select everything in a cell's editor and type `source` over it (as a paste, so no auto-indent)."""
        editor = self.cell(index).locator(".cm-content")
        editor.click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.insert_text(source)
        expect(editor).to_have_text(source.replace("\n", ""))
        self.page.keyboard.press("Escape")  # back to command mode, as after typing

    def run_cell(self, index: int) -> None:
        """Select a cell, press Shift+Enter, and wait until its prompt shows a new execution number."""
        before = self.prompt(index).text_content() or ""
        self.cell(index).locator(".jp-InputPrompt").click()
        self.page.keyboard.press("Shift+Enter")
        expect(self.prompt(index)).not_to_have_text(before)
        expect(self.prompt(index)).to_have_text(EXECUTED_PROMPT)

    def error_outputs(self, index: int | None = None) -> Locator:
        """Tracebacks and stderr of one cell, or of the whole notebook."""
        scope = self.notebook() if index is None else self.cell(index)
        return scope.locator(ERROR_OUTPUT)

    def text_outputs(self, index: int) -> Locator:
        return self.cell(index).locator(TEXT_OUTPUT)

    def show(self, index: int) -> None:
        """Scroll a cell into view, for the screenshot."""
        self.cell(index).scroll_into_view_if_needed()
