"""Write files atomically: readers see the old file or the whole new one, never half of it."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the file ordinary permissions
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> None:
    write_bytes(path, text.encode(encoding))


def check_writable(path: str | os.PathLike) -> None:
    """Raise OSError (a one-line message) if :func:`write_bytes` could not write ``path``: it
    is a directory, or its nearest existing folder is a file or not writable. For commands that
    work long before they write: say so before the work, not after."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a directory; give a file path")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise NotADirectoryError(f"cannot write {path}: {folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write {path}: no write permission in {folder}")
