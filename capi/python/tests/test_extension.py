"""Analyzers written in Python (register_analyzer), plugins (load_plugin)
and rule packs (add_rules) through the binding."""

import ctypes
import json
import os
import threading
import unittest

import casefile
from casefile import extension
from support import SharedIndexTest, corpus, expected

TPU = corpus("hang_bad_chip", "bundle")  # logs only, no HLO (corpus/README.md)
DIGEST = expected("hang_bad_chip")["findings"][0]["evidence"][0]  # line 1683 of w-0


class RegisteredAnalyzerTest(SharedIndexTest):
    """Each test registers under its own name and unregisters in cleanup."""

    def register(self, name, run, **kwargs):
        casefile.register_analyzer(name, run, **kwargs)
        self.addCleanup(self._unregister_quietly, name)

    @staticmethod
    def _unregister_quietly(name):
        try:
            casefile.unregister_analyzer(name)
        except casefile.UnknownAnalyzerError:
            pass

    def analyze(self, *analyzers, bundle=TPU):
        return casefile.analyze(bundle, index=self.shared_index(os.path.basename(os.path.dirname(bundle))),
                                analyzers=list(analyzers) or None, store=False)

    def test_finding_from_python(self):
        calls = []

        def run(analysis):
            calls.append(threading.get_ident())
            rows = analysis.query(
                "SELECT f.id, l.line_no, f.host FROM lines l JOIN files f ON f.id = l.file_id "
                "WHERE l.text LIKE '%Megascale detects a hang%' ORDER BY f.path, l.line_no")
            self.assertEqual(len(rows), 1)  # only the coordinator (w-0) prints the digest
            file_id, line, host = rows[0]
            (analysis.finding("pytest.digest", "warning", "a digest was printed")
             .summary("The coordinator printed a hang digest.")
             .recommendation("Read it.")
             .culprit(host="t1v-n-8e41c2d0-w-5", task="jax_worker/5")
             .culprit(rank=3)
             .evidence(int(file_id), int(line))
             .evidence_path(DIGEST["path"], DIGEST["line"] + 4, bundle="bundle")
             .emit())

        self.register("pytest-digest", run, version="7", description="a test analyzer",
                      needed_kinds=["log"], codes=["pytest.digest"])
        names = [a.name for a in casefile.analyzers()]
        self.assertEqual(names[-1], "pytest-digest")  # external ones come last
        info = next(a for a in casefile.analyzers() if a.name == "pytest-digest")
        self.assertEqual(info.description, "a test analyzer")

        report = self.analyze()
        self.assertEqual(calls, [threading.get_ident()])  # on the calling thread
        self.assertEqual(report.analyzer("pytest-digest").status, "ran")
        ours = [f for f in report.findings if f.code == "pytest.digest"]
        self.assertEqual(len(ours), 1)
        f = ours[0]
        self.assertEqual(f.analyzer, "pytest-digest")
        self.assertEqual(f.severity, "warning")
        self.assertEqual(f.title, "a digest was printed")
        self.assertEqual(f.summary, "The coordinator printed a hang digest.")
        self.assertEqual(f.recommendation, "Read it.")
        self.assertIn(casefile.Culprit(host="t1v-n-8e41c2d0-w-5", task="jax_worker/5", rank=None),
                      f.culprits)
        self.assertIn(casefile.Culprit(host=None, task=None, rank=3), f.culprits)
        cited = {(e.path, e.line): e.text for e in f.evidence}
        self.assertIn(DIGEST["contains"], cited[(DIGEST["path"], DIGEST["line"])])
        # Line 1687: "Potential culprit workers: ..." (expected.json).
        self.assertIn("Potential culprit workers", cited[(DIGEST["path"], DIGEST["line"] + 4)])
        # Exactly like a built-in finding in the JSON.
        doc = json.loads(report.json)
        self.assertIn("pytest.digest", [x["code"] for x in doc["findings"]])
        # The built-in hang finding is still there.
        self.assertIn("hang.bad_chip", [x.code for x in report.findings])

    def test_exception_fails_only_that_analyzer(self):
        def run(analysis):
            raise ValueError("boom in python")

        self.register("pytest-raises", run)
        report = self.analyze()
        status = report.analyzer("pytest-raises")
        self.assertEqual(status.status, "failed")
        self.assertIn("ValueError: boom in python", status.reason)
        self.assertEqual(report.analyzer("hang").status, "ran")
        self.assertIn("hang.bad_chip", [f.code for f in report.findings])

    def test_findings_of_a_failed_run_are_discarded(self):
        def run(analysis):
            (analysis.finding("pytest.half", "info", "emitted before failing")
             .evidence_path(DIGEST["path"], DIGEST["line"]).emit())
            raise RuntimeError("after emitting")

        self.register("pytest-half", run, codes=["pytest.half"])
        report = self.analyze("pytest-half")
        self.assertEqual(report.analyzer("pytest-half").status, "failed")
        self.assertEqual(report.findings, [])

    def test_finding_without_evidence(self):
        def run(analysis):
            analysis.finding("pytest.bare", "error", "no evidence").emit()

        self.register("pytest-bare", run)
        report = self.analyze("pytest-bare")
        status = report.analyzer("pytest-bare")
        self.assertEqual(status.status, "failed")
        # The library's reason (the first violation), not the Python
        # exception's text: it names the code and what is missing.
        self.assertIn("pytest.bare", status.reason)
        self.assertIn("no evidence", status.reason)
        self.assertEqual(report.findings, [])

    def test_finding_without_evidence_fails_even_when_caught(self):
        errors = []

        def run(analysis):
            try:
                analysis.finding("pytest.bare", "error", "no evidence").emit()
            except casefile.ArgumentError as e:
                errors.append(e)  # caught, but the analyzer is still failed

        self.register("pytest-bare-caught", run)
        report = self.analyze("pytest-bare-caught")
        self.assertEqual(len(errors), 1)
        self.assertIn("evidence", str(errors[0]))
        status = report.analyzer("pytest-bare-caught")
        self.assertEqual(status.status, "failed")
        self.assertIn("pytest.bare", status.reason)
        self.assertIn("no evidence", status.reason)
        self.assertEqual(report.findings, [])

    def test_evidence_that_does_not_exist(self):
        errors = []

        def run(analysis):
            b = analysis.finding("pytest.nowhere", "info", "bad evidence")
            try:
                b.evidence_path("no/such/file.log", 1)
            except casefile.ArgumentError as e:
                errors.append(e)
            b.evidence_path(DIGEST["path"], DIGEST["line"]).emit()

        self.register("pytest-nowhere", run)
        report = self.analyze("pytest-nowhere")
        self.assertEqual(len(errors), 1)
        self.assertEqual(report.analyzer("pytest-nowhere").status, "ran")
        self.assertEqual([f.code for f in report.findings], ["pytest.nowhere"])

    def test_undeclared_code_fails_the_analyzer(self):
        def run(analysis):
            try:
                analysis.finding("pytest.other", "info", "not declared")
            except casefile.CasefileError:
                pass  # caught, but the analyzer is still failed

        self.register("pytest-codes", run, codes=["pytest.declared"])
        status = self.analyze("pytest-codes").analyzer("pytest-codes")
        self.assertEqual(status.status, "failed")
        self.assertIn("pytest.other", status.reason)

    def test_bad_severity(self):
        def run(analysis):
            analysis.finding("pytest.sev", "fatal", "no such severity")

        self.register("pytest-sev", run)
        status = self.analyze("pytest-sev").analyzer("pytest-sev")
        self.assertEqual(status.status, "failed")
        self.assertIn("severity", status.reason)

    def test_queries_are_read_only(self):
        seen = []

        def run(analysis):
            try:
                analysis.query("DELETE FROM files")
            except casefile.ReadOnlyError as e:
                seen.append(e.status)
            try:
                analysis.query("SELEC 1")
            except casefile.QueryError as e:
                seen.append(e.status)
            result = analysis.execute("SELECT 1 AS one")
            seen.append(result.columns)

        self.register("pytest-readonly", run)
        self.assertEqual(self.analyze("pytest-readonly").analyzer("pytest-readonly").status, "ran")
        self.assertEqual(seen, [501, 500, ("one",)])

    def test_query_limits_in_an_analyzer(self):
        # casefile_analysis_query_ex: the same limits as a session's query.
        seen = []

        def run(analysis):
            sql = "SELECT value FROM json_each('[1,2,3]')"
            seen.append(analysis.query(sql, max_rows=3))
            try:
                analysis.query(sql, max_rows=2)
            except casefile.LimitError as e:
                seen.append((e.status, "more than 2 rows" in e.message))
            try:
                analysis.query(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                    "SELECT count(*) FROM n",
                    timeout=0.2,
                )
            except casefile.QueryTimeoutError as e:
                seen.append((e.status, "casefile_analysis_query_ex" in e.message))

        self.register("pytest-limits", run)
        self.assertEqual(self.analyze("pytest-limits").analyzer("pytest-limits").status, "ran")
        self.assertEqual(seen, [[("1",), ("2",), ("3",)], (400, True), (401, True)])

    def test_analysis_is_dead_after_the_callback(self):
        kept = []

        def run(analysis):
            kept.append(analysis)
            kept.append(analysis.finding("pytest.kept", "info", "never emitted"))

        self.register("pytest-kept", run)
        self.assertEqual(self.analyze("pytest-kept").analyzer("pytest-kept").status, "ran")
        with self.assertRaises(casefile.MisuseError):
            kept[0].query("SELECT 1")
        with self.assertRaises(casefile.MisuseError):
            kept[1].summary("too late")

    def test_not_applicable_without_its_kinds(self):
        calls = []
        self.register("pytest-hlo", lambda analysis: calls.append(1), needed_kinds=["hlo"])
        status = self.analyze("pytest-hlo").analyzer("pytest-hlo")
        self.assertEqual(status.status, "not_applicable")
        self.assertEqual(calls, [])

    def test_callbacks_run_on_each_calling_thread(self):
        idents = []
        self.register("pytest-threads", lambda analysis: idents.append(threading.get_ident()))
        results = {}

        def work(key):
            report = casefile.analyze(TPU, index=self.shared_index("thread-%d" % key),
                                      analyzers=["pytest-threads"], store=False)
            results[key] = (threading.get_ident(), report.analyzer("pytest-threads").status)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(sorted(s for _, s in results.values()), ["ran", "ran"])
        self.assertEqual(sorted(idents), sorted(ident for ident, _ in results.values()))

    def test_unregister_releases_the_callback(self):
        self.register("pytest-gone", lambda analysis: None)
        before = dict(extension._registry)
        casefile.unregister_analyzer("pytest-gone")
        self.assertNotIn("pytest-gone", [a.name for a in casefile.analyzers()])
        # free_payload dropped the registration (and so the Python callable).
        self.assertEqual(len(before) - len(extension._registry), 1)
        with self.assertRaises(casefile.UnknownAnalyzerError):
            casefile.unregister_analyzer("pytest-gone")
        with self.assertRaises(casefile.UnknownAnalyzerError):
            self.analyze("pytest-gone")
        # The name is free again.
        self.register("pytest-gone", lambda analysis: None)

    def test_registration_errors(self):
        count = len(extension._registry)
        for name in ("Bad Name", "", "hang", "rules", "x" * 65):
            with self.assertRaises(casefile.ArgumentError, msg=name):
                casefile.register_analyzer(name, lambda analysis: None)
        with self.assertRaises(casefile.ArgumentError):
            casefile.register_analyzer("pytest-badcode", lambda a: None, codes=["Not A Code"])
        with self.assertRaises(casefile.ArgumentError):
            casefile.register_analyzer("pytest-builtin-code", lambda a: None, codes=["hang.bad_chip"])
        self.register("pytest-twice", lambda analysis: None)
        with self.assertRaises(casefile.ArgumentError):
            casefile.register_analyzer("pytest-twice", lambda analysis: None)
        with self.assertRaises(TypeError):
            casefile.register_analyzer("pytest-notcallable", "run")
        # Failed registrations left nothing behind (free_payload is not called
        # for them; the binding drops them itself).
        self.assertEqual(len(extension._registry), count + 1)
        with self.assertRaises(casefile.ArgumentError):
            casefile.unregister_analyzer("hang")

    def test_bad_arguments_leave_nothing_registered(self):
        count = len(extension._registry)
        refused = ({"needed_kinds": None}, {"codes": None}, {"needed_kinds": "log"},
                   {"codes": ["pytest.badargs", 7]}, {"needed_kinds": 3})
        for kwargs in refused:
            with self.assertRaises(TypeError, msg=kwargs):
                casefile.register_analyzer("pytest-badargs", lambda analysis: None, **kwargs)
            # The binding's table did not keep the callable.
            self.assertEqual(len(extension._registry), count, msg=kwargs)
        # Nor did the library.
        self.assertNotIn("pytest-badargs", extension._by_name)
        self.assertNotIn("pytest-badargs", [a.name for a in casefile.analyzers()])
        self.register("pytest-badargs", lambda analysis: None, needed_kinds=("log",))
        self.assertEqual(len(extension._registry), count + 1)

    def test_bytes_name_is_unregistered_at_exit(self):
        self.register(b"pytest-bytes", lambda analysis: None)
        self.assertIn("pytest-bytes", [a.name for a in casefile.analyzers()])
        self.assertIn("pytest-bytes", extension._by_name)
        self.assertTrue(all(isinstance(name, str) for name in extension._by_name))
        # What the atexit handler does (this test registered the only Python
        # analyzer there is now): the library must forget it.
        extension._unregister_all_at_exit()
        self.assertNotIn("pytest-bytes", [a.name for a in casefile.analyzers()])
        self.assertNotIn("pytest-bytes", extension._by_name)
        # Unregistering by bytes works too.
        self.register(b"pytest-bytes", lambda analysis: None)
        casefile.unregister_analyzer(b"pytest-bytes")
        self.assertNotIn("pytest-bytes", extension._by_name)

    def test_none_version_and_description_are_the_defaults(self):
        self.register("pytest-defaults", lambda analysis: None, version=None, description=None)
        info = next(a for a in casefile.analyzers() if a.name == "pytest-defaults")
        self.assertEqual(info.description, "")  # not "None"
        doc = json.loads(self.analyze("pytest-defaults").json)
        entry = next(a for a in doc["analyzers"] if a["name"] == "pytest-defaults")
        self.assertEqual(entry["version"], "1")  # the header's default for NULL
        self.assertEqual(entry["status"], "ran")


class PluginTest(unittest.TestCase):
    def test_load_plugin(self):
        plugin = os.environ.get("CASEFILE_PY_TEST_PLUGIN")
        self.assertTrue(plugin, "ctest sets CASEFILE_PY_TEST_PLUGIN")
        casefile.load_plugin(plugin)
        self.addCleanup(casefile.unregister_analyzer, "pyplug")
        casefile.load_plugin(plugin)  # the same file again does nothing
        self.assertIn("pyplug", [a.name for a in casefile.analyzers()])
        report = casefile.analyze(corpus("runtime_cuda_oom", "bundle"), analyzers=["pyplug"],
                                  store=False, index_dir=os.environ.get("CASEFILE_PY_TEST_TMP"))
        self.assertEqual(report.analyzer("pyplug").status, "ran")
        self.assertEqual([f.code for f in report.findings], ["pyplug.loaded"])
        # The bundle's one log (corpus/README.md), line 1.
        evidence = report.findings[0].evidence[0]
        self.assertEqual((evidence.path, evidence.line), ("logs/deepspeed_launcher.log", 1))

    def test_refused_plugins(self):
        with self.assertRaises(casefile.NotFoundError):
            casefile.load_plugin("/nonexistent/plugin.so")
        # A shared object without the entry point.
        with self.assertRaises(casefile.PluginError) as cm:
            casefile.load_plugin(os.environ["CASEFILE_PY_FAKE_ABI1"])
        self.assertIn("casefile_plugin_entry", cm.exception.message)
        # Not a shared object at all.
        with self.assertRaises(casefile.PluginError):
            casefile.load_plugin(os.path.abspath(__file__))

    def test_load_plugin_path(self):
        self.assertEqual(casefile.load_plugin_path("::"), 0)  # empty entries skipped
        with self.assertRaises(casefile.NotFoundError):
            casefile.load_plugin_path("/nonexistent/dir/plugin.so")


PACK = """{
  "casefile_rules": 1,
  "name": "pytest-pack",
  "description": "a rule pack written by the Python binding's test",
  "rules": [
    {
      "code": "pyrules.detection_enabled",
      "severity": "info",
      "title": "Megascale hang detection was on",
      "summary": "{count} line(s) on {hosts} say so, first at {first}.",
      "recommendation": "Nothing to do.",
      "kinds": ["log"],
      "match": {"any": ["Megascale hang detection enabled"]}
    }
  ]
}
"""


class RulesTest(SharedIndexTest):
    def analyze_rules(self):
        return casefile.analyze(TPU, index=self.shared_index("rules"), analyzers=["rules"],
                                store=False)

    def test_add_text_then_remove(self):
        casefile.add_rules(PACK, source_name="pack-from-python")
        try:
            report = self.analyze_rules()
            ours = [f for f in report.findings if f.code == "pyrules.detection_enabled"]
            self.assertEqual(len(ours), 1)
            self.assertEqual(ours[0].analyzer, "rules")
            self.assertEqual(ours[0].severity, "info")
            # Each of the eight hosts logs the line once (corpus/README.md).
            self.assertTrue(all("Megascale hang detection enabled" in e.text
                                for e in ours[0].evidence))
        finally:
            casefile.remove_rules("pytest-pack")
        self.assertNotIn("pyrules.detection_enabled",
                         [f.code for f in self.analyze_rules().findings])
        with self.assertRaises(casefile.ArgumentError):
            casefile.remove_rules("pytest-pack")  # no longer added

    def test_add_file_and_bytes(self):
        path = self.path("pack.json")
        with open(path, "w") as f:
            f.write(PACK)
        casefile.check_rules(path)
        casefile.add_rules(path)
        casefile.remove_rules("pytest-pack")
        casefile.add_rules(PACK.encode())
        casefile.remove_rules("pytest-pack")

    def test_invalid_pack(self):
        bad = PACK.replace('"severity": "info"', '"severity": "fatal"')
        with self.assertRaises(casefile.RulesError) as cm:
            casefile.add_rules(bad, source_name="bad-pack")
        self.assertEqual(cm.exception.status, 303)
        # "SOURCE:LINE:COLUMN: message"; the severity is on line 8 of PACK.
        self.assertEqual(len(cm.exception.errors), 1)
        self.assertRegex(cm.exception.errors[0], r"^bad-pack:8:\d+: .*severity")
        path = self.path("bad.json")
        with open(path, "w") as f:
            f.write(bad)
        with self.assertRaises(casefile.RulesError):
            casefile.check_rules(path)
        with self.assertRaises(casefile.NotFoundError):
            casefile.add_rules(self.path("missing.json"))
        with self.assertRaises(casefile.ArgumentError):
            casefile.remove_rules("builtin-runtime")


if __name__ == "__main__":
    unittest.main()
