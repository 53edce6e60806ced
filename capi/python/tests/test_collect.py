"""casefile.collect and casefile.verify in a temporary folder: what is
packed, redaction of a made-up token, verification, damage, and errors."""

import os
import unittest

import casefile
from support import TempDirTest

# A made-up Hugging Face token (the hf_token family of
# docs/BUNDLE_FORMAT.md); it must not reach the bundle.
TOKEN = "hf_Zq8XbT4mWn2RkP6yVd0LcJ9sHa3GfE1uQo"
LOG = "step 1 loss 2.31\nlogin with token %s ok\nstep 2 loss 2.30\n" % TOKEN


class CollectTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.src = self.path("pysrc")
        os.makedirs(self.src)
        with open(os.path.join(self.src, "train.log"), "w") as f:
            f.write(LOG)
        self.output = self.path("out.tar.zst")

    def collect(self, **kwargs):
        options = dict(logs=[self.src], host="pyhost", no_versions=True, no_discover=True,
                       environment={"PATH": "/usr/bin"}, labels={"job": "py"},
                       deterministic=True)
        options.update(kwargs)
        return casefile.collect(self.output, **options)

    def test_collect_and_verify(self):
        phases = []
        result = self.collect(progress=lambda phase, done, total, current: phases.append(phase))
        self.assertIn("scan", phases)
        self.assertIn("write", phases)
        self.assertFalse(result.partial)
        # The log and env.txt (the environment given), per the C API test's
        # reading of docs/BUNDLE_FORMAT.md.
        self.assertEqual(result.file_count, 2)
        redacted = LOG.replace(TOKEN, "<redacted:hf_token:12345678>")
        self.assertEqual(result.bytes, len(redacted) + len("PATH=/usr/bin\n"))
        self.assertEqual(result.archive_bytes, os.path.getsize(self.output))
        self.assertEqual(result.redaction_count, 1)
        self.assertEqual(result.redactions, {"hf_token": 1})
        self.assertEqual(result.errors, [])
        by_path = {e.path: e for e in result.entries}
        entry = by_path["hosts/pyhost/logs/pysrc/train.log"]
        self.assertEqual(entry.action, "pack")
        self.assertEqual(entry.source, os.path.join(self.src, "train.log"))
        self.assertEqual(entry.kind, "log")
        self.assertEqual(entry.redactions, 1)
        self.assertEqual(entry.note, "")
        with open(self.output, "rb") as f:
            self.assertNotIn(TOKEN.encode(), f.read())

        verified = casefile.verify(self.output)
        self.assertTrue(verified.ok)
        self.assertTrue(verified)
        self.assertEqual(verified.file_count, 2)
        self.assertEqual(verified.problems, [])

        # The bundle analyzes like any other, and the token is not in it.
        rows = casefile.query(self.output, "SELECT count(*) FROM lines WHERE text LIKE '%hf_Zq8%'",
                              index=self.path("collected.db"))
        self.assertEqual(rows, [("0",)])

    def test_deterministic_with_a_shared_key(self):
        self.collect(redact_key=b"a key shared by the hosts")
        with open(self.output, "rb") as f:
            first = f.read()
        self.collect(redact_key="a key shared by the hosts")  # str works too
        with open(self.output, "rb") as f:
            self.assertEqual(f.read(), first)

    def test_dry_run_writes_nothing(self):
        result = self.collect(dry_run=True)
        self.assertFalse(os.path.exists(self.output))
        self.assertEqual(result.archive_bytes, 0)
        self.assertIn("hosts/pyhost/logs/pysrc/train.log", [e.path for e in result.entries])

    def test_missing_input_is_partial(self):
        result = self.collect(logs=[self.src, self.path("no-such.log")])
        self.assertTrue(result.partial)
        self.assertEqual([e.source for e in result.errors], [self.path("no-such.log")])
        self.assertTrue(result.errors[0].message)

    def test_argument_errors(self):
        with self.assertRaises(casefile.ArgumentError) as cm:
            casefile.collect(None, logs=[self.src], no_versions=True)
        self.assertIn("output", cm.exception.message)
        with self.assertRaises(casefile.ArgumentError) as cm:
            self.collect(labels=["no-equals-sign"])
        self.assertIn("no-equals-sign", cm.exception.message)
        with self.assertRaises(casefile.ArgumentError):
            self.collect(redact_key=b"short")
        with self.assertRaises(casefile.ArgumentError):
            self.collect(zstd_level=99)
        self.assertFalse(os.path.exists(self.output))

    def test_abort_and_exception_from_progress(self):
        with self.assertRaises(casefile.AbortedError):
            self.collect(progress=lambda phase, done, total, current: phase == "write")
        self.assertFalse(os.path.exists(self.output))

        def progress(phase, done, total, current):
            raise RuntimeError("stop collecting")

        with self.assertRaisesRegex(RuntimeError, "stop collecting"):
            self.collect(progress=progress)
        self.assertFalse(os.path.exists(self.output))


class VerifyTest(TempDirTest):
    def test_damaged_bundle(self):
        src = self.path("src")
        os.makedirs(src)
        with open(os.path.join(src, "train.log"), "w") as f:
            f.write(LOG)
        output = self.path("good.tar.zst")
        casefile.collect(output, logs=[src], host="h", no_versions=True, no_discover=True,
                         environment=["PATH=/usr/bin"], deterministic=True)
        with open(output, "rb") as f:
            head = f.read(100)
        damaged = self.path("damaged.tar.zst")
        with open(damaged, "wb") as f:
            f.write(head)
        result = casefile.verify(damaged)
        self.assertFalse(result.ok)
        self.assertFalse(result)
        self.assertGreaterEqual(len(result.problems), 1)
        self.assertEqual(result.problems[0].kind, "archive")
        self.assertTrue(result.problems[0].message)

    def test_errors(self):
        with self.assertRaises(casefile.NotFoundError):
            casefile.verify(self.path("missing.tar.zst"))
        with self.assertRaises(casefile.UnsupportedError):
            casefile.verify(self.tmp)  # a directory


if __name__ == "__main__":
    unittest.main()
