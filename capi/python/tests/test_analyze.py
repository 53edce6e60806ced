"""casefile.analyze, Session and Report over corpus bundles; expected codes,
culprits and evidence come from each scenario's expected.json."""

import gc
import io
import json
import os
import tarfile
import unittest

import casefile
from support import SharedIndexTest, TempDirTest, corpus, expected, synthetic_train_log, write_log_bundle


def check_against_expected(test, report, scenario):
    """The rules of corpus/README.md: exactly the codes listed; culprits the
    exact set (keys omitted not checked); each evidence pin among the
    finding's evidence."""
    exp = expected(scenario)
    test.assertEqual(sorted(f.code for f in report.findings),
                     sorted(f["code"] for f in exp["findings"]))
    for want in exp["findings"]:
        got = next(f for f in report.findings if f.code == want["code"])
        if "culprits" in want:
            keys = sorted({k for c in want["culprits"] for k in c})
            got_set = sorted(tuple(getattr(c, k) for k in keys) for c in got.culprits)
            want_set = sorted(tuple(c.get(k) for k in keys) for c in want["culprits"])
            test.assertEqual(got_set, want_set, want["code"])
        for pin in want.get("evidence", []):
            matches = [e for e in got.evidence
                       if e.path == pin["path"] and e.line == pin["line"] and pin["contains"] in e.text]
            test.assertTrue(matches, "%s: %r not cited" % (want["code"], pin))


class AnalyzeCorpusTest(SharedIndexTest):
    def test_hang_bad_chip(self):
        bundle = corpus("hang_bad_chip", "bundle")
        report = casefile.analyze(bundle, index=self.shared_index("bad_chip"))
        with report:
            check_against_expected(self, report, "hang_bad_chip")
            finding = report.findings[0]
            self.assertEqual(finding.analyzer, "hang")
            self.assertEqual(finding.severity, "error")
            self.assertTrue(finding.title)
            self.assertTrue(finding.summary)
            self.assertTrue(finding.recommendation)
            self.assertEqual(finding.culprits[0].rank, None)  # no rank in a TPU digest
            self.assertEqual({e.bundle for e in finding.evidence}, {"bundle"})
            self.assertEqual(report.max_severity, "error")
            self.assertFalse(report.partial)
            self.assertIsInstance(report.index, casefile.IndexResult)
            self.assertEqual(report.index.path, self.shared_index("bad_chip"))
            # Every analyzer has a status; the built-in ones are there.
            names = [a.name for a in report.analyzers]
            for builtin in ("build", "comm", "hang", "numeric", "runtime"):
                self.assertIn(builtin, names)
            self.assertEqual(report.analyzer("hang").status, "ran")
            for status in report.analyzers:
                self.assertIn(status.status, ("ran", "not_applicable", "failed"))

            # The JSON says the same as the dataclasses.
            doc = json.loads(report.json)
            self.assertEqual([f["code"] for f in doc["findings"]],
                             [f.code for f in report.findings])
            self.assertIn("hang.bad_chip", report.text)
            self.assertIs(report.json, report.json)  # rendered once, kept
            self.assertIn("\x1b[", report.render(casefile.FORMAT_TEXT_COLOR))
            # The report for a bug report: one HTML page, and markdown.
            self.assertTrue(report.html.startswith("<!DOCTYPE html>"))
            self.assertIn('data-code="hang.bad_chip"', report.html)
            self.assertIn("hang.bad_chip", report.markdown)
            with self.assertRaises(casefile.CasefileError):
                report.render(99)

    def test_two_findings_with_several_culprits(self):
        report = casefile.analyze(corpus("runtime_cuda_oom", "bundle"),
                                  index=self.shared_index("cuda_oom"))
        check_against_expected(self, report, "runtime_cuda_oom")
        report.close()

    def test_healthy_run_of_two_bundles(self):
        base = corpus("healthy_gpu")
        inputs = [os.path.join(base, p) for p in expected("healthy_gpu")["inputs"]]
        self.assertEqual(len(inputs), 2)
        report = casefile.analyze(*inputs, index=self.shared_index("healthy_gpu"))
        self.assertEqual(report.findings, [])
        self.assertEqual(report.max_severity, None)
        doc = json.loads(report.json)
        self.assertEqual(len(doc["bundles"]), 2)

    def test_selected_analyzers_only(self):
        report = casefile.analyze(corpus("hang_bad_chip", "bundle"), analyzers=["build"],
                                  index=self.shared_index("bad_chip"), store=False)
        self.assertEqual([a.name for a in report.analyzers], ["build"])
        self.assertEqual(report.findings, [])  # hang did not run

    def test_without_context_renders_json_and_text_only(self):
        # Options version 2: the same JSON and text; HTML is refused.
        path, index = corpus("hang_bad_chip", "bundle"), self.shared_index("bad_chip")
        full = casefile.analyze(path, index=index, store=False)
        bare = casefile.analyze(path, index=index, store=False, context=False)
        self.assertEqual(bare.json, full.json)
        self.assertEqual(bare.text, full.text)
        with self.assertRaises(casefile.ArgumentError) as cm:
            bare.html  # noqa: B018 (the property renders)
        self.assertIn("CASEFILE_OMIT_CONTEXT", cm.exception.message)
        self.assertIn("<html", full.html)

    def test_unknown_analyzer(self):
        with self.assertRaises(casefile.UnknownAnalyzerError) as cm:
            casefile.analyze(corpus("hang_bad_chip", "bundle"), analyzers=["no-such-analyzer"],
                             index=self.shared_index("bad_chip"))
        self.assertEqual(cm.exception.status, 102)
        self.assertIn("no-such-analyzer", cm.exception.message)


class AnalyzeErrorsTest(TempDirTest):
    def test_missing_bundle(self):
        missing = self.path("no-such-bundle")
        with self.assertRaises(casefile.NotFoundError) as cm:
            casefile.analyze(missing)
        self.assertEqual(cm.exception.status, 201)
        self.assertEqual(cm.exception.status_name, "CASEFILE_E_NOT_FOUND")
        self.assertIn("no-such-bundle", cm.exception.message)
        self.assertIn("casefile_session_open", cm.exception.message)

    def test_no_inputs(self):
        with self.assertRaises(casefile.ArgumentError):
            casefile.Session()

    def _truncated_bundle(self):
        # A .tar.gz of a synthetic torchrun log (5 MB), cut in the middle of
        # its compressed stream: what was read is indexed, the bundle is
        # partial.
        data = synthetic_train_log(100000)
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w:gz") as tar:
            info = tarfile.TarInfo("logs/train.log")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        path = self.path("cut.tar.gz")
        with open(path, "wb") as f:
            f.write(raw.getvalue()[: len(raw.getvalue()) // 2])
        return path

    def test_partial_input(self):
        bundle = self._truncated_bundle()
        with casefile.Session(bundle, index=self.path("cut.db")) as s:
            result = s.index()
            self.assertTrue(result.partial)
            self.assertFalse(result.reused)
            report = s.analyze()
        self.assertTrue(report.partial)
        self.assertTrue(report.has_ingest_issues)
        self.assertEqual(json.loads(report.json)["bundles"][0]["status"], "partial")
        # analyze() says so too, without raising.
        self.assertTrue(casefile.analyze(bundle, index=self.path("cut.db")).partial)


class SessionTest(TempDirTest):
    BUNDLE = corpus("runtime_cuda_oom", "bundle")

    def test_index_then_reuse(self):
        db = self.path("s.db")
        with casefile.open(self.BUNDLE, index=db) as s:
            self.assertEqual(s.index_path, db)
            first = s.index()
            self.assertEqual(first, casefile.IndexResult(partial=False, reused=False, path=db))
            self.assertTrue(os.path.isfile(db))
        with casefile.Session.open(self.BUNDLE, index=db) as s:
            self.assertTrue(s.index().reused)
            self.assertTrue(s.reused)
        with casefile.Session(self.BUNDLE, index=db, reindex=True) as s:
            self.assertFalse(s.index().reused)

    def test_default_index_goes_to_the_cache_folder(self):
        # support.TempDirTest points CASEFILE_CACHE_DIR at a temp folder.
        with casefile.Session(self.BUNDLE) as s:
            self.assertEqual(os.path.dirname(s.index_path), self.path("cache"))
        with casefile.Session(self.BUNDLE, index_dir=self.path("here")) as s:
            self.assertEqual(os.path.dirname(s.index_path), self.path("here"))

    def big_bundle(self):
        # Indexing reports progress every 8 MiB read: 20 MB of log lines.
        return write_log_bundle(self.path("big"), 400000)

    def test_progress_is_called_and_can_abort(self):
        bundle = self.big_bundle()
        seen = []
        with casefile.Session(bundle, index=self.path("p.db")) as s:
            s.index(progress=lambda done, path: seen.append((done, path)))
        self.assertGreaterEqual(len(seen), 2)
        self.assertEqual({p for _, p in seen}, {"logs/train.log"})
        done = [d for d, _ in seen]
        self.assertEqual(done, sorted(done))
        self.assertGreaterEqual(done[0], 8 << 20)

        with casefile.Session(bundle, index=self.path("abort.db")) as s:
            with self.assertRaises(casefile.AbortedError):
                s.index(progress=lambda done, path: True)
        self.assertFalse(os.path.exists(self.path("abort.db")))

    def test_progress_exception_is_raised_again(self):
        class Stop(Exception):
            pass

        def progress(done, path):
            raise Stop("from progress")

        with casefile.Session(self.big_bundle(), index=self.path("e.db")) as s:
            with self.assertRaisesRegex(Stop, "from progress"):
                s.index(progress=progress)
            # The session is still usable afterwards.
            self.assertFalse(s.index().partial)

    def test_close_is_idempotent_and_use_after_close_fails(self):
        s = casefile.Session(self.BUNDLE, index=self.path("c.db"))
        report = s.analyze()
        s.close()
        s.close()
        self.assertTrue(s.closed)
        with self.assertRaises(casefile.MisuseError):
            s.index()
        with self.assertRaises(casefile.MisuseError):
            s.query("SELECT 1")
        with self.assertRaises(casefile.MisuseError):
            s.index_path
        # The report outlives the session (casefile.h) ...
        self.assertIn("runtime.cuda_oom", report.json)
        report.close()
        report.close()
        # ... its copied findings outlive the report; rendering does not.
        self.assertEqual(len(report.findings), 2)
        self.assertIn("runtime.cuda_oom", report.json)  # rendered before close
        with self.assertRaises(casefile.MisuseError):
            report.text

    def test_handles_freed_by_garbage_collection(self):
        # __del__ is the fallback: many sessions and reports left to the GC
        # must not leak or crash.
        for _ in range(20):
            s = casefile.Session(self.BUNDLE, index=self.path("g.db"))
            s.analyze(analyzers=["build"], store=False)
            del s
        gc.collect()

    def test_report_of_a_closed_context_is_closed(self):
        with casefile.Session(self.BUNDLE, index=self.path("r.db")) as s:
            with s.analyze() as report:
                pass
        self.assertTrue(report.closed)
        self.assertTrue(s.closed)


if __name__ == "__main__":
    unittest.main()
