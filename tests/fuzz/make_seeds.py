#!/usr/bin/env python3
"""Writes the seed inputs of every fuzz target from files already in the repo.

Each target tests/fuzz/fuzz_<name>.cc has a spec tests/fuzz/<name>.seeds:
one directive per line, '#' starts a comment, globs are relative to the repo
root and may use '**':

    lines GLOB...     runs of consecutive lines (up to 24 lines / 4 KiB)
    files GLOB...     whole files, the first MAX_FILE bytes
    tar   GLOB...     each matching directory as a .tar; every second one is
                      also written as .tar.gz, and as .tar.zst when the zstd
                      program is present (the archive reader's three paths)
    text  STRING      one literal seed (escapes: \\n \\t \\r \\xHH)
    max   N           at most N seeds for this target (default 400), taken
                      evenly across what the directives found

The output is deterministic: sorted inputs, evenly spaced picks, names from
the content's hash. Standard library only.
"""
import argparse
import glob
import gzip
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile

MAX_FILE = 64 * 1024
CHUNK_LINES = 24
CHUNK_BYTES = 4096
TAR_FILE_CAP = 16 * 1024  # bytes kept of each file put in a tar seed
TAR_TOTAL_CAP = 256 * 1024


def expand(source, pattern):
    return sorted(glob.glob(os.path.join(source, pattern), recursive=True))


def line_chunks(path):
    with open(path, 'rb') as f:
        data = f.read(4 * 1024 * 1024)
    lines = data.splitlines(keepends=True)
    out = []
    for i in range(0, len(lines), CHUNK_LINES):
        chunk = b''.join(lines[i:i + CHUNK_LINES])[:CHUNK_BYTES]
        if chunk.strip():
            out.append(chunk)
    return out


def tar_bytes(directory):
    buf = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buf, mode='w', format=tarfile.GNU_FORMAT) as tar:
        for root, dirs, files in os.walk(directory):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(root, name)
                if not os.path.isfile(full) or total >= TAR_TOTAL_CAP:
                    continue
                with open(full, 'rb') as f:
                    data = f.read(TAR_FILE_CAP)
                total += len(data)
                info = tarfile.TarInfo(os.path.relpath(full, directory))
                info.size = len(data)
                info.mtime = 0
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def unescape(text):
    return text.encode('utf-8').decode('unicode_escape').encode('latin-1')


def seeds_for(source, spec_path):
    found = []
    limit = 400
    zstd = shutil.which('zstd')
    with open(spec_path, encoding='utf-8') as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith('#'):
                continue
            word, _, rest = line.partition(' ')
            args = rest.split()
            if word == 'max':
                limit = int(args[0])
            elif word == 'text':
                found.append(unescape(rest))
            elif word == 'lines':
                for pattern in args:
                    for path in expand(source, pattern):
                        if os.path.isfile(path):
                            found.extend(line_chunks(path))
            elif word == 'files':
                for pattern in args:
                    for path in expand(source, pattern):
                        if os.path.isfile(path):
                            with open(path, 'rb') as g:
                                found.append(g.read(MAX_FILE))
            elif word == 'tar':
                n = 0
                for pattern in args:
                    for path in expand(source, pattern):
                        if not os.path.isdir(path):
                            continue
                        data = tar_bytes(path)
                        found.append(data)
                        if n % 2 == 1:
                            found.append(gzip.compress(data, mtime=0))
                            if zstd:
                                found.append(subprocess.run([zstd, '-q', '-c', '-3'], input=data,
                                                            stdout=subprocess.PIPE,
                                                            check=True).stdout)
                        n += 1
            else:
                sys.exit(f'{spec_path}:{lineno}: unknown directive {word!r}')
    if len(found) > limit:
        step = len(found) / limit
        found = [found[int(i * step)] for i in range(limit)]
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--source', required=True, help='the repository root')
    ap.add_argument('--specs', required=True, help='the folder of <name>.seeds files')
    ap.add_argument('--out', required=True, help='seeds go to OUT/<name>/')
    a = ap.parse_args()
    specs = sorted(p for p in os.listdir(a.specs) if p.endswith('.seeds'))
    if not specs:
        sys.exit(f'{a.specs}: no .seeds files')
    for spec in specs:
        name = spec[:-len('.seeds')]
        out_dir = os.path.join(a.out, name)
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        seeds = seeds_for(a.source, os.path.join(a.specs, spec))
        if not seeds:
            sys.exit(f'{spec}: no seeds found (do its globs still match?)')
        for data in seeds:
            digest = hashlib.sha1(data).hexdigest()
            with open(os.path.join(out_dir, digest), 'wb') as f:
                f.write(data)
        print(f'{name}: {len(set(seeds))} seeds')


if __name__ == '__main__':
    main()
