"""Replace a file in one step: the one atomic write of the package.

``sphinx-relocate rewrite`` and ``import`` write sources and the table with it, the build
its ``objects.inv`` (so a server never sends half an inventory).
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Replace the file ``path`` with ``data`` through a temp file in its folder,
    keeping its mode and owner (a new file: mode 0644), so no reader sees half of it.

    A file with more than one hard link, or whose owner the temp file cannot be given, is
    written in place instead (truncated, then written), so every link keeps naming it and
    the owner stays.
    """
    try:
        before: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        before = None
    if before is not None and before.st_nlink > 1:
        _write_in_place(path, memoryview(data))
        return
    mode = stat.S_IMODE(before.st_mode) if before is not None else 0o644
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            rest = memoryview(data)
            while rest:
                rest = rest[os.write(handle, rest) :]
        finally:
            os.close(handle)
        os.chmod(temp, mode)
        made = os.stat(temp)
        if before is not None and (made.st_uid, made.st_gid) != (before.st_uid, before.st_gid):
            try:
                os.chown(temp, before.st_uid, before.st_gid)
                os.chmod(temp, mode)  # chown may clear set-id bits
            except OSError:  # not allowed to give the file away: keep the file itself
                os.unlink(temp)
                _write_in_place(path, memoryview(data))
                return
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise


def _write_in_place(path: Path, data: memoryview) -> None:
    """Truncate and write ``path`` itself (its inode: hard links, owner and mode stay)."""
    with open(path, "r+b") as handle:
        handle.truncate(0)
        while data:
            data = data[handle.write(data) :]
