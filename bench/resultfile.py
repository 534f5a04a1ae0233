"""Result files of the bench scripts: a table written where the user asked, never over
an existing file unless they said --force.

write_new(path, text, force) returns None, or a one-line message naming the path and
the problem, which the calling script prints as its own error.
"""
import os


def write_new(path, text, force):
    """Writes text to path; an existing file is replaced only with force. Returns an
    error message, or None."""
    if os.path.isdir(path):
        return f"{path}: is a directory"
    if os.path.lexists(path) and not force:
        return f"{path}: exists (--force replaces it)"
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        return f"{path}: {e.strerror}"
    return None
