"""casefile.diff over the corpus/diff pairs: the headline named by each
pair's expected.json (corpus/diff/README.md), and the error paths."""

import json
import os
import unittest

import casefile
from support import SharedIndexTest, corpus, expected


def item_matches(item, want):
    if item["section"] != want["section"] or item["kind"] != want["kind"]:
        return False
    if "key" in want and item["key"] != want["key"]:
        return False
    if "key_contains" in want and want["key_contains"] not in item["key"]:
        return False
    return True


def pin_cited(pin, evidence):
    for e in evidence:
        if "path" in pin and e["path"] != pin["path"]:
            continue
        if "line" in pin and e["line"] != pin["line"]:
            continue
        if pin["contains"] in e["text"]:
            return True
    return False


class DiffCorpusTest(SharedIndexTest):
    def run_pair(self, pair, **kwargs):
        exp = expected("diff", pair)
        base = corpus("diff", pair)
        good = [os.path.join(base, p) for p in exp["good"]]
        bad = [os.path.join(base, p) for p in exp["bad"]]
        report = casefile.diff(good, bad, good_index=self.shared_index(pair + "-good"),
                               bad_index=self.shared_index(pair + "-bad"), **kwargs)
        return exp, report

    def test_nccl_upgrade(self):
        exp, report = self.run_pair("diff_nccl_upgrade")
        with report:
            doc = json.loads(report.json)
            headline = doc["headline"]
            # Exactly the expected set of headline items.
            self.assertEqual(len(headline), len(exp["headline"]))
            for want in exp["headline"]:
                found = [item for item in headline if item_matches(item, want)]
                self.assertEqual(len(found), 1, want)
                for side in ("good_evidence", "bad_evidence"):
                    for pin in want.get(side, []):
                        self.assertTrue(pin_cited(pin, found[0][side]), (side, pin))
            for want in exp["include"]:
                section = doc[want["section"]]
                items = section if isinstance(section, list) else [
                    i for group in section.values() for i in group]
                self.assertTrue(any(item_matches(i, want) for i in items), want)
            for name in exp["empty"]:
                part = doc
                for key in name.split("."):
                    part = part[key]
                self.assertEqual(part, [], name)
            # The borrowed headline sentences are the JSON items' summaries.
            self.assertEqual(report.headline, [item["summary"] for item in headline])
            self.assertFalse(report.partial)
            self.assertIn(report.headline[0], report.text)

    def test_healthy_lengths_has_no_headline(self):
        exp, report = self.run_pair("diff_healthy_lengths", store=False)
        self.assertEqual(exp["headline"], [])
        self.assertEqual(report.headline, [])
        self.assertEqual(json.loads(report.json)["headline"], [])
        report.close()
        report.close()  # twice is fine
        with self.assertRaises(casefile.MisuseError):
            report.text  # never rendered before close

    def test_missing_side(self):
        with self.assertRaises(casefile.NotFoundError):
            casefile.diff(corpus("diff", "diff_nccl_upgrade", "good"), self.path("missing"))

    def test_same_session_on_both_sides(self):
        with casefile.Session(corpus("diff", "diff_nccl_upgrade", "good"),
                              index=self.shared_index("diff_nccl_upgrade-good")) as s:
            with self.assertRaises(casefile.ArgumentError) as cm:
                casefile.diff_sessions(s, s)
            self.assertIn("same session", cm.exception.message)

    def test_closed_session(self):
        good = casefile.Session(corpus("diff", "diff_nccl_upgrade", "good"))
        bad = casefile.Session(corpus("diff", "diff_nccl_upgrade", "bad"))
        good.close()
        with self.assertRaises(casefile.MisuseError):
            casefile.diff_sessions(good, bad)
        bad.close()


if __name__ == "__main__":
    unittest.main()
