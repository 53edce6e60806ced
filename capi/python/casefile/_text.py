"""Conversions between Python strings and the library's char*.

Paths go through the file system encoding both ways, so a path that is not
UTF-8 survives the round trip; texts (titles, log lines, messages, query
values) are UTF-8 with undecodable bytes replaced, so they always print.
"""

import os


def encode_path(path):
    return os.fsencode(path)


def encode_text(text):
    if isinstance(text, bytes):
        return text
    return str(text).encode("utf-8")


def decode_path(raw):
    if raw is None:
        return None
    return os.fsdecode(raw)


def decode_text(raw):
    if raw is None:
        return None
    return raw.decode("utf-8", "replace")


def flatten_paths(paths):
    """One path, or several, or one list of them -> a list of paths."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        return [paths]
    flat = []
    for item in paths:
        if isinstance(item, (list, tuple)):
            flat.extend(item)
        else:
            flat.append(item)
    return flat
