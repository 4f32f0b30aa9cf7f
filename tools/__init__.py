"""Commands that generate files of the repository from the installed packages (`python -m tools.<name>`)."""
