"""Shared by the binding's tests: where the corpus and scratch space are.

ctest sets CASEFILE_LIBRARY, CASEFILE_CORPUS_DIR, CASEFILE_PY_* and
PYTHONPATH (capi/python/CMakeLists.txt). Run by hand from capi/python:
    CASEFILE_LIBRARY=../../build/lib/libcasefile.so.0 PYTHONPATH=. python3 -m unittest discover -s tests
"""

import json
import os
import shutil
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
CORPUS = os.environ.get("CASEFILE_CORPUS_DIR", os.path.join(REPO, "corpus"))


def corpus(*parts):
    return os.path.join(CORPUS, *parts)


def expected(*scenario):
    with open(corpus(*scenario, "expected.json"), encoding="utf-8") as f:
        return json.load(f)


def scratch_root():
    root = os.environ.get("CASEFILE_PY_TEST_TMP")
    if root:
        os.makedirs(root, exist_ok=True)
    return root


class TempDirTest(unittest.TestCase):
    """A fresh directory per test (self.tmp), and a cache folder inside it so
    that no test writes to ~/.cache."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="casefile-py-", dir=scratch_root())
        self._old_cache = os.environ.get("CASEFILE_CACHE_DIR")
        os.environ["CASEFILE_CACHE_DIR"] = os.path.join(self.tmp, "cache")

    def tearDown(self):
        if self._old_cache is None:
            os.environ.pop("CASEFILE_CACHE_DIR", None)
        else:
            os.environ["CASEFILE_CACHE_DIR"] = self._old_cache
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)


# Indexes of corpus bundles shared by the tests of one module (indexing a
# TPU scenario takes a second or two): built once in a class-level folder.
class SharedIndexTest(TempDirTest):
    shared_dir = None

    @classmethod
    def setUpClass(cls):
        cls.shared_dir = tempfile.mkdtemp(prefix="casefile-py-shared-", dir=scratch_root())

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.shared_dir, ignore_errors=True)

    def shared_index(self, name):
        return os.path.join(self.shared_dir, name + ".db")


def synthetic_train_log(lines):
    """A torchrun-style log of `lines` step lines (about 52 bytes each), as
    bytes; the values vary so that compression leaves it large."""
    import random

    rnd = random.Random(lines)
    return "".join(
        "[rank%d]: step %d loss %.6f grad_norm %.5f\n" % (i % 8, i, rnd.random() * 3, rnd.random())
        for i in range(lines)
    ).encode()


def write_log_bundle(root, lines):
    """A directory bundle holding logs/train.log; returns its path."""
    os.makedirs(os.path.join(root, "logs"), exist_ok=True)
    with open(os.path.join(root, "logs", "train.log"), "wb") as f:
        f.write(synthetic_train_log(lines))
    return root
