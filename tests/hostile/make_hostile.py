#!/usr/bin/env python3
"""Writes every hostile bundle of tests/hostile/cases.json into a folder.

Usage: make_hostile.py --out DIR [--case NAME]...

Everything is generated at test time and deterministically (fixed seeds,
fixed mtimes), so nothing big is committed. Big cases are cheap to make: a
block is compressed once and its compressed frame (zstd frames, gzip members
and flushed deflate blocks all concatenate into one stream) is repeated, so
the whole generation takes seconds and a little over 100 MB of disk (most of
it the 10-million-event trace and the 100,000-entry archive).

Standard library only, plus the `zstd` program. Tar headers and zip records
are written by hand here: the cases need bytes that tarfile and zipfile
refuse to write (control bytes and invalid UTF-8 in names, a lying size, a
broken checksum, a huge declared size).
"""

import argparse
import gzip
import os
import random
import shutil
import socket
import stat
import struct
import subprocess
import sys
import zlib

MTIME = 1767225600  # 2026-01-01T00:00:00Z: fixed, so archives are byte-identical
MIB = 1 << 20
GIB = 1 << 30
ZEROS_64M = bytes(64 * MIB)

# ----------------------------------------------------------------------------
# Tar (GNU format, written by hand)


def _octal(value, width):
    return b"%0*o\0" % (width - 1, value)


def _size_field(size):
    # Octal up to 11 digits (8 GiB - 1); beyond, GNU base-256.
    if size < 8**11:
        return _octal(size, 12)
    return b"\x80" + size.to_bytes(11, "big")


def _raw_header(name, size, typeflag, link=b"", mode=0o644, major=0, minor=0):
    h = bytearray(512)
    h[0:100] = name[:100].ljust(100, b"\0")
    h[100:108] = _octal(mode, 8)
    h[108:116] = _octal(0, 8)
    h[116:124] = _octal(0, 8)
    h[124:136] = _size_field(size)
    h[136:148] = _octal(MTIME, 12)
    h[148:156] = b" " * 8
    h[156:157] = typeflag
    h[157:257] = link[:100].ljust(100, b"\0")
    h[257:265] = b"ustar  \0"
    h[265:269] = b"root"
    h[297:301] = b"root"
    h[329:337] = _octal(major, 8)
    h[337:345] = _octal(minor, 8)
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def _pad(n):
    return b"\0" * (-n % 512)


def tar_header(name, size=0, typeflag=b"0", link=b"", **kw):
    """The header blocks of one member: GNU long-name/long-link blocks first
    when a name does not fit in 100 bytes."""
    out = b""
    if len(name) > 100:
        data = name + b"\0"
        out += _raw_header(b"././@LongLink", len(data), b"L") + data + _pad(len(data))
    if len(link) > 100:
        data = link + b"\0"
        out += _raw_header(b"././@LongLink", len(data), b"K") + data + _pad(len(data))
    return out + _raw_header(name, size, typeflag, link, **kw)


def tar_file(name, data):
    return tar_header(name, len(data)) + data + _pad(len(data))


def tar_dir(name):
    return tar_header(name.rstrip(b"/") + b"/", 0, b"5", mode=0o755)


TAR_END = b"\0" * 1024


def numbered_lines(prefix, count):
    return b"".join(b"%s %d\n" % (prefix, i) for i in range(1, count + 1))


# ----------------------------------------------------------------------------
# Compression


def zstd(data, level=3):
    return subprocess.run(
        ["zstd", "-q", "-c", "-%d" % level, "--no-check"],
        input=data,
        stdout=subprocess.PIPE,
        check=True,
    ).stdout


def gz(data, level=6):
    return gzip.compress(data, compresslevel=level, mtime=0)


def deflate_zeros_chunk():
    """Raw deflate of 64 MiB of zeros, ended by a full flush: a byte-aligned
    run of non-final blocks that refers to nothing before it, so copies of
    it concatenate into one valid deflate stream (end it with DEFLATE_END)."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    return co.compress(ZEROS_64M) + co.flush(zlib.Z_FULL_FLUSH)


DEFLATE_END = b"\x03\x00"  # a final, empty fixed-Huffman block


# ----------------------------------------------------------------------------
# Zip (written by hand: the declared sizes are the point)


def zip_archive(members):
    """members: (name, stored_bytes, method, crc, declared_size) each; the
    declared uncompressed size always goes in a zip64 extra field."""
    body = b""
    central = b""
    for name, stored, method, crc, declared in members:
        offset = len(body)
        local_extra = struct.pack("<HHQQ", 1, 16, declared, len(stored))
        body += struct.pack(
            "<IHHHHHIIIHH",
            0x04034B50, 45, 0, method, 0, 0x5C21, crc,
            0xFFFFFFFF, 0xFFFFFFFF, len(name), len(local_extra),
        ) + name + local_extra + stored
        central_extra = struct.pack("<HHQQ", 1, 16, declared, len(stored))
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50, 45, 45, 0, method, 0, 0x5C21, crc,
            0xFFFFFFFF, 0xFFFFFFFF, len(name), len(central_extra), 0, 0, 0, 0o100644 << 16,
            offset,
        ) + name + central_extra
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(body), 0
    )
    return body + central + end


def deflate(data):
    co = zlib.compressobj(6, zlib.DEFLATED, -15)
    return co.compress(data) + co.flush()


# ----------------------------------------------------------------------------
# Helpers for folders


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def remove_tree(path):
    """shutil.rmtree recurses in Python and fails on deep_dirs_tree (2,600
    levels, deeper than PATH_MAX): remove it level by level through
    directory descriptors instead."""
    if not os.path.lexists(path):
        return
    if not os.path.isdir(path) or os.path.islink(path):
        os.unlink(path)
        return
    parent = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY | os.O_DIRECTORY)
    stack = [(parent, os.path.basename(os.path.abspath(path)), None)]
    # Each frame: (fd of its parent, its name, its own fd once opened).
    while stack:
        pfd, name, fd = stack[-1]
        if fd is None:
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=pfd)
            stack[-1] = (pfd, name, fd)
        child_dir = None
        for entry in os.scandir(fd):
            if entry.is_dir(follow_symlinks=False):
                child_dir = entry.name
                break
            os.unlink(entry.name, dir_fd=fd)
        if child_dir is not None:
            stack.append((fd, child_dir, None))
            continue
        os.close(fd)
        os.rmdir(name, dir_fd=pfd)
        stack.pop()
    os.close(parent)


# ----------------------------------------------------------------------------
# The cases. Each writes into `d` (its own folder) and returns nothing; the
# input path of each case is in cases.json.

BEFORE = numbered_lines(b"before the hostile entry, step", 20)
AFTER = numbered_lines(b"after the hostile entry, step", 5)


def case_bomb_tar_zst(d):
    # before.log, then data/zeros.bin declared as 64 GiB of zeros (1,024
    # copies of one zstd frame of 64 MiB of zeros), then after.log.
    zeros = 64 * GIB
    head = tar_file(b"logs/before.log", BEFORE) + tar_header(b"data/zeros.bin", zeros)
    tail = tar_file(b"logs/after.log", AFTER) + TAR_END
    frame = zstd(ZEROS_64M, 1)
    with open(os.path.join(d, "bomb.tar.zst"), "wb") as f:
        f.write(zstd(head))
        for _ in range(zeros // len(ZEROS_64M)):
            f.write(frame)
        f.write(zstd(tail))


def case_bomb_tar_gz(d):
    # The same with gzip members (deflate tops out near 1032:1). The entry
    # declares 16 GiB but the file stops after 1.5 GiB of it: with no ratio
    # guard the read would end in archive_corrupt, not decompression_bomb.
    head = tar_file(b"logs/before.log", BEFORE) + tar_header(b"data/zeros.bin", 16 * GIB)
    member = gz(ZEROS_64M, 9)
    with open(os.path.join(d, "bomb.tar.gz"), "wb") as f:
        f.write(gz(head))
        for _ in range(24):
            f.write(member)


def case_bomb_zip(d):
    # A zip member declaring 1 TiB (zip64) whose deflate stream really
    # inflates to 1.5 GiB of zeros from 1.5 MB.
    chunk = deflate_zeros_chunk()
    stored = chunk * 24 + DEFLATE_END
    members = [
        (b"logs/before.log", BEFORE, 0, zlib.crc32(BEFORE), len(BEFORE)),
        (b"data/huge.bin", stored, 8, 0, 1 << 40),
        (b"logs/after.log", AFTER, 0, zlib.crc32(AFTER), len(AFTER)),
    ]
    write(os.path.join(d, "bomb.zip"), zip_archive(members))


def case_zip_size_lie(d):
    # Small members whose headers declare 1 TiB: nothing may be sized or
    # allocated from the declaration.
    text = numbered_lines(b"small member, line", 3)
    members = [
        (b"logs/liar.log", deflate(text), 8, zlib.crc32(text), 1 << 40),
        (b"logs/stored_liar.log", text, 0, zlib.crc32(text), 1 << 40),
        (b"logs/honest.log", AFTER, 0, zlib.crc32(AFTER), len(AFTER)),
    ]
    write(os.path.join(d, "liar.zip"), zip_archive(members))


def case_gz_member_bomb(d):
    # A plain tar whose logs/bomb.log.gz member (1.5 MB) gunzips to 1.5 GiB
    # of zeros: the inner layer's ratio is the bomb; the archive around it
    # is sound, so after.log is read too.
    bomb = gz(ZEROS_64M, 9) * 24
    data = (
        tar_file(b"logs/before.log", BEFORE)
        + tar_file(b"logs/bomb.log.gz", bomb)
        + tar_file(b"logs/zz_after.log", AFTER)
        + TAR_END
    )
    write(os.path.join(d, "gzbomb.tar"), data)


def case_zeros_4gib(d):
    # A directory holding logs/zeros.log.gz: 4 GiB of zeros in 4.2 MB (64
    # gzip members of 64 MiB each). (A sparse 4 GiB file would cost the
    # kernel 4 GiB of page zeroing per run: seconds to half a minute.)
    root = os.path.join(d, "bundle")
    write(os.path.join(root, "logs/before.log"), BEFORE)
    member = gz(ZEROS_64M, 9)
    with open(os.path.join(root, "logs/zeros.log.gz"), "wb") as f:
        for _ in range(64):
            f.write(member)
    write(os.path.join(root, "logs/zz_after.log"), AFTER)


def case_many_entries(d):
    # 100,000 members of 18 bytes. Only six digits of the name and of the
    # text change from one to the next, so the headers are patched from one
    # template (tar_file per member would take seconds).
    template = bytearray(tar_header(b"logs/many/000000.log", 18))
    base_sum = sum(template) - sum(template[148:156]) + 8 * ord(" ") - 6 * ord("0")
    parts = []
    for i in range(100000):
        digits = b"%06d" % i
        header = template[:]
        header[10:16] = digits
        header[148:156] = b"%06o\0 " % (base_sum + sum(digits))
        parts.append(bytes(header) + b"tiny entry " + digits + b"\n" + bytes(494))
    parts.append(TAR_END)
    write(os.path.join(d, "many.tar.zst"), zstd(b"".join(parts), 3))


def case_deep_dirs_tar(d):
    deep = b"deep/" + b"d/" * 1000 + b"deep.log"
    too_long = b"e/" * 3000 + b"toolong.log"
    data = (
        tar_file(b"logs/before.log", BEFORE)
        + tar_file(deep, b"at the bottom of 1000 directories\n")
        + tar_file(too_long, b"never indexed\n")
        + tar_file(b"logs/zz_after.log", AFTER)
        + TAR_END
    )
    write(os.path.join(d, "deep.tar"), data)


def case_deep_dirs_tree(d):
    # 2,600 nested directories: past PATH_MAX (4096) from the bundle root.
    root = os.path.join(d, "bundle")
    write(os.path.join(root, "logs/before.log"), BEFORE)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(2600):
        os.mkdir("d", dir_fd=fd)
        child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = child
    leaf = os.open("bottom.log", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(leaf, b"at the bottom\n")
    os.close(leaf)
    os.close(fd)
    write(os.path.join(root, "zz_after.log"), AFTER)


def case_names_dotdot(d):
    data = (
        tar_file(b"../../../../../../tmp/casefile_hostile_escape.log", b"escape attempt\n")
        + tar_file(b"logs/../../../up.log", b"up attempt\n")
        + tar_file(b"./a/./b/../c.log", b"dots\n")
        + tar_file(b"..\\..\\win.log", b"backslashes\n")
        + tar_file(b"..", b"just dots\n")
        + tar_file(b"logs/ok.log", AFTER)
        + TAR_END
    )
    write(os.path.join(d, "dotdot.tar"), data)


def case_names_absolute(d):
    data = (
        tar_file(b"/tmp/casefile_hostile_absolute.log", b"absolute\n")
        + tar_file(b"//etc//casefile_hostile_passwd.log", b"double slash\n")
        + tar_header(b"/", 0, b"5", mode=0o755)
        + tar_file(b"logs/ok.log", AFTER)
        + TAR_END
    )
    write(os.path.join(d, "absolute.tar"), data)


def case_names_control(d):
    # Control bytes in names. A NUL ends a tar name, in the header and in a
    # GNU long name alike: "logs/nul\0hidden.log" is read as "logs/nul".
    names = [
        b"logs/esc\x1b[2J\x1b]0;owned\x07.log",
        b"logs/new\nline.log",
        b"logs/carriage\rreturn.log",
        b"logs/tab\tand\x01soh.log",
        b"logs/del\x7f.log",
        b"logs/nul\0hidden.log",
    ]
    data = b"".join(tar_file(n, b"named with control bytes\n") for n in names)
    data += tar_file(b"logs/ok.log", AFTER) + TAR_END
    write(os.path.join(d, "control.tar"), data)


def case_names_utf8_long(d):
    component = b"c" * 255
    names = [
        b"logs/bad\xff\xfe.log",
        b"logs/overlong\xc0\xaf.log",
        b"logs/surrogate\xed\xa0\x80.log",
        b"logs/" + component + b".log",
        b"logs/" + (component + b"/") * 15 + b"p" * (4096 - 5 - 256 * 15 - 4) + b".log",
        b"logs/" + b"q" * 4100 + b".log",
        b"logs/" + b"r" * 100000 + b".log",
    ]
    assert len(names[4]) == 4096, len(names[4])
    data = b"".join(tar_file(n, b"a line\n") for n in names)
    data += tar_file(b"logs/zz_after.log", AFTER) + TAR_END
    write(os.path.join(d, "names.tar"), data)


def case_duplicate_names(d):
    data = (
        tar_file(b"logs/a.log", b"first copy\n")
        + tar_file(b"logs/a.log", b"second copy\nsecond copy, line 2\n")
        + tar_file(b"./logs/a.log", b"third copy\n")
        + tar_file(b"logs//a.log", b"fourth copy\n")
        + tar_dir(b"logs")
        + tar_dir(b"logs")
        + tar_file(b"logs/b.log", AFTER)
        + TAR_END
    )
    write(os.path.join(d, "dup.tar"), data)


def case_link_loops_tar(d):
    data = (
        tar_file(b"logs/real.log", b"the real file\n")
        + tar_header(b"loop", 0, b"2", b"loop")
        + tar_header(b"a", 0, b"2", b"b")
        + tar_header(b"b", 0, b"2", b"a")
        + tar_header(b"up", 0, b"2", b"..")
        + tar_header(b"logs/passwd.log", 0, b"2", b"/etc/passwd")
        + tar_header(b"logs/shadow.log", 0, b"2", b"../../../../../../etc/shadow")
        + tar_header(b"h1", 0, b"1", b"h2")
        + tar_header(b"h2", 0, b"1", b"h1")
        + tar_header(b"hself", 0, b"1", b"hself")
        + tar_header(b"logs/hpasswd.log", 0, b"1", b"/etc/passwd")
        + tar_header(b"logs/hard.log", 0, b"1", b"logs/real.log")
        + tar_file(b"logs/zz_after.log", AFTER)
        + TAR_END
    )
    write(os.path.join(d, "links.tar"), data)


def case_link_loops_dir(d):
    root = os.path.join(d, "bundle")
    write(os.path.join(root, "logs/real.log"), b"the real file\n")
    os.symlink("loop", os.path.join(root, "loop"))
    os.symlink("b", os.path.join(root, "a"))
    os.symlink("a", os.path.join(root, "b"))
    os.symlink("..", os.path.join(root, "logs/up"))
    os.symlink(".", os.path.join(root, "logs/self"))
    os.symlink("/etc/passwd", os.path.join(root, "logs/passwd.log"))
    os.symlink("/", os.path.join(root, "rootfs"))
    os.link(os.path.join(root, "logs/real.log"), os.path.join(root, "logs/hard.log"))
    write(os.path.join(root, "logs/zz_after.log"), AFTER)


def case_device_entries_tar(d):
    data = (
        tar_header(b"dev/null", 0, b"3", mode=0o666, major=1, minor=3)
        + tar_header(b"dev/zero.log", 0, b"3", mode=0o666, major=1, minor=5)
        + tar_header(b"dev/sda", 0, b"4", mode=0o660, major=8, minor=0)
        + tar_header(b"logs/fifo.log", 0, b"6")
        + tar_file(b"logs/zz_after.log", AFTER)
        + TAR_END
    )
    write(os.path.join(d, "devices.tar"), data)


def case_device_entries_dir(d):
    # A fifo and a socket where logs are expected: opening the fifo to read
    # would block forever.
    root = os.path.join(d, "bundle")
    write(os.path.join(root, "logs/before.log"), BEFORE)
    os.mkfifo(os.path.join(root, "logs/fifo.log"))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock_path = os.path.join(root, "logs/socket.log")
    # bind() needs a short path: bind from inside the folder.
    cwd = os.getcwd()
    os.chdir(os.path.join(root, "logs"))
    try:
        sock.bind("socket.log")
    finally:
        os.chdir(cwd)
        sock.close()
    assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    write(os.path.join(root, "logs/zz_after.log"), AFTER)


def _text_lines(seed, size):
    """Pseudo-random log lines that zstd cannot squeeze much."""
    rng = random.Random(seed)
    alphabet = b"abcdefghijklmnopqrstuvwxyz0123456789 "
    table = bytes(alphabet[i % len(alphabet)] for i in range(256))
    out = bytearray()
    n = 0
    while len(out) < size:
        n += 1
        out += b"line %d " % n + rng.randbytes(80).translate(table) + b"\n"
    return bytes(out)


def case_truncated_zstd(d):
    c_text = _text_lines(11, 2 * MIB)
    data = (
        tar_file(b"logs/a.log", numbered_lines(b"a line", 100))
        + tar_file(b"logs/b.log", numbered_lines(b"b line", 100))
        + tar_file(b"logs/c.log", c_text)
        + tar_file(b"logs/d.log", numbered_lines(b"d line", 100))
        + TAR_END
    )
    compressed = zstd(data, 3)
    # The cut falls in the middle of c.log's compressed bytes (a and b are
    # a few hundred bytes, c.log about 1 MB).
    write(os.path.join(d, "cut.tar.zst"), compressed[: len(compressed) // 2])


def case_corrupt_tar_header(d):
    a = tar_file(b"logs/a.log", numbered_lines(b"a line", 10))
    b = tar_file(b"logs/b.log", numbered_lines(b"b line", 10))
    c = bytearray(tar_file(b"logs/c.log", numbered_lines(b"c line", 10)))
    c[0:16] = b"\xde\xad\xbe\xef" * 4  # name garbled: the checksum no longer matches
    e = tar_file(b"logs/e.log", numbered_lines(b"e line", 10))
    write(os.path.join(d, "corrupt.tar"), a + b + bytes(c) + e + TAR_END)


def case_long_line(d):
    # logs/long.log: "start", then one 200 MB line, then "after the long line".
    line = b"0123456789abcdef" * (MIB // 16)
    body = b"start\n"
    end = b"\nafter the long line\n"
    size = len(body) + 200 * len(line) + len(end)
    head = tar_header(b"logs/long.log", size) + body
    tail = end + _pad(size) + tar_file(b"logs/zz_after.log", AFTER) + TAR_END
    frame = zstd(line, 3)
    with open(os.path.join(d, "longline.tar.zst"), "wb") as f:
        f.write(zstd(head))
        for _ in range(200):
            f.write(frame)
        f.write(zstd(tail))


def case_binary_named_log(d):
    rng = random.Random(7)
    root = os.path.join(d, "bundle")
    write(os.path.join(root, "logs/random.log"), rng.randbytes(4 * MIB))
    write(os.path.join(root, "logs/elf.log"), b"\x7fELF\x02\x01\x01\0" + rng.randbytes(MIB))
    write(os.path.join(root, "logs/control.log"), b"\x01\x02\x03\x04" * (MIB // 4))
    write(os.path.join(root, "logs/nuls.log"), bytes(MIB) + b"\nafter the nuls\n")
    write(os.path.join(root, "logs/zz_after.log"), AFTER)


def case_json_deep(d):
    n = 1000000
    root = os.path.join(d, "bundle")
    write(os.path.join(root, "config/deep_array.json"), b"[" * n + b"]" * n)
    write(os.path.join(root, "config/deep_object.json"), b'{"a":' * n + b"1" + b"}" * n)
    write(os.path.join(root, "config/deep_flow.yaml"), b"key: " + b"[" * n + b"]" * n + b"\n")
    # Block sequences nest on one line too: "- - - 1" is [[[1]]].
    write(os.path.join(root, "config/deep_block.yaml"), b"- " * 100000 + b"1\n")
    # A trace with an event nested a million deep (2 MB: over the 1 MiB
    # event limit), one nested 100,000 deep (200 kB), then a plain one.
    m = 100000
    write(
        os.path.join(root, "traces/deep.trace.json"),
        b'{"traceEvents":[{"name":"deep","ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"args":{"x":'
        + b"[" * n + b"]" * n
        + b'}},{"name":"deep100k","ph":"X","pid":1,"tid":1,"ts":2,"dur":1,"args":{"x":'
        + b"[" * m + b"]" * m
        + b'}},{"name":"after","ph":"X","pid":1,"tid":1,"ts":5,"dur":1}]}\n',
    )
    # The manifest itself nested a million deep.
    write(os.path.join(root, "casefile.json"), b'{"files":' + b"[" * n + b"]" * n + b"}")
    write(os.path.join(root, "logs/zz_after.log"), AFTER)


def case_trace_10m(d):
    # 10,000,000 events: a head, 100 copies of one zstd frame of 100,000
    # events, a tail, all inside one tar member.
    per_chunk = 100000
    copies = 100
    chunk = b"".join(
        b'{"name":"op%d","ph":"X","pid":1,"tid":%d,"ts":%d,"dur":3},' % (i % 50, i % 8, i * 5)
        for i in range(per_chunk)
    )
    body_head = b'{"displayTimeUnit":"ns","traceEvents":[\n'
    body_tail = b'{"name":"last","ph":"X","pid":1,"tid":0,"ts":1,"dur":1}]}\n'
    size = len(body_head) + copies * len(chunk) + len(body_tail)
    head = (
        tar_file(b"logs/before.log", BEFORE)
        + tar_header(b"plugins/profile/run/host-0.trace.json", size)
        + body_head
    )
    tail = body_tail + _pad(size) + tar_file(b"logs/zz_after.log", AFTER) + TAR_END
    frame = zstd(chunk, 9)
    with open(os.path.join(d, "trace10m.tar.zst"), "wb") as f:
        f.write(zstd(head))
        for _ in range(copies):
            f.write(frame)
        f.write(zstd(tail))


def case_hlo_one_line(d):
    # An HLO module whose text is one 100 MB line.
    first = b"HloModule jit_train_step, entry_computation_layout={(f32[8]{0})->f32[8]{0}}"
    piece = b" %add.1 = f32[8]{0} add(f32[8]{0} %p0, f32[8]{0} %p1);" * 16384
    copies = (100 * MIB) // len(piece)
    size = len(first) + copies * len(piece)
    name = b"xla_dump/module_0001.jit_train_step.before_optimizations.txt"
    head = tar_file(b"logs/before.log", BEFORE) + tar_header(name, size) + first
    tail = _pad(size) + tar_file(b"logs/zz_after.log", AFTER) + TAR_END
    frame = zstd(piece, 3)
    with open(os.path.join(d, "hlo.tar.zst"), "wb") as f:
        f.write(zstd(head))
        for _ in range(copies):
            f.write(frame)
        f.write(zstd(tail))


def case_manifest_lies(d):
    # A collect-style bundle whose manifest lies: wrong sizes and hashes, a
    # size of 1 PB, a file that is not there, a path that climbs out.
    log = numbered_lines(b"I1130 10:00:00.000000 1234 train.py:10] step", 10)
    manifest = (
        b'{"format_version":1,"casefile_version":"0.2.0","created_at":"2026-01-01T00:00:00Z",'
        b'"host":"node-7","labels":{},"command_line":"casefile collect",'
        b'"redaction":{"enabled":false,"hosts":false,"key":"none","counts":{}},'
        b'"files":['
        b'{"path":"hosts/node-7/logs/train.log","source":"/x/train.log","kind":"log",'
        b'"size":3,"sha256":"' + b"0" * 64 + b'"},'
        b'{"path":"hosts/node-7/logs/huge.log","source":"/x/huge.log","kind":"log",'
        b'"size":1000000000000000,"sha256":"' + b"f" * 64 + b'"},'
        b'{"path":"hosts/node-7/logs/missing.log","source":"/x/m.log","kind":"log",'
        b'"size":10,"sha256":"' + b"a" * 64 + b'"},'
        b'{"path":"../../etc/passwd","source":"/etc/passwd","kind":"log","size":1,'
        b'"sha256":"' + b"b" * 64 + b'"}'
        b'],"commands":[],"errors":[],"skipped":[],'
        b'"totals":{"files":4,"bytes":1000000000000013}}'
    )
    data = (
        tar_file(b"casefile.json", manifest)
        + tar_file(b"hosts/node-7/logs/train.log", log)
        + tar_file(b"hosts/node-7/logs/huge.log", b"tiny, not a petabyte\n")
        + TAR_END
    )
    write(os.path.join(d, "node-7.tar.zst"), zstd(data))


CASES = {
    name[len("case_"):]: fn for name, fn in sorted(globals().items()) if name.startswith("case_")
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to (re)create the cases in")
    parser.add_argument("--case", action="append", help="only these cases (default: all)")
    args = parser.parse_args()
    if shutil.which("zstd") is None:
        sys.exit("make_hostile.py: the zstd program is needed")
    names = args.case or sorted(CASES)
    for name in names:
        if name not in CASES:
            sys.exit("make_hostile.py: unknown case " + name)
    os.makedirs(args.out, exist_ok=True)
    for name in names:
        d = os.path.join(args.out, name)
        remove_tree(d)
        os.makedirs(d)
        CASES[name](d)
    # A marker that the set is whole: run_hostile.py refuses a half-made set.
    write(os.path.join(args.out, "COMPLETE"), ("\n".join(names) + "\n").encode())


if __name__ == "__main__":
    main()
