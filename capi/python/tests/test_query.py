"""casefile.query, Session.query / execute: rows, column names, NULLs, and
the refusals of a read-only index."""

import unittest

import casefile
from support import SharedIndexTest, corpus

BUNDLE = corpus("hang_bad_chip", "bundle")


class QueryTest(SharedIndexTest):
    def setUp(self):
        super().setUp()
        self.db = self.shared_index("query")

    def test_rows_are_tuples_of_text(self):
        # The bundle holds logs/t1v-n-8e41c2d0-w-0..7/worker.log (corpus/README.md).
        rows = casefile.query(
            BUNDLE,
            "SELECT path FROM files WHERE path LIKE 'logs/%/worker.log' ORDER BY path",
            index=self.db,
        )
        self.assertEqual(rows, [("logs/t1v-n-8e41c2d0-w-%d/worker.log" % i,) for i in range(8)])

    def test_paths_as_a_list(self):
        rows = casefile.query([BUNDLE], "SELECT 1 + 1, 'x'", index=self.db)
        self.assertEqual(rows, [("2", "x")])

    def test_lines_table(self):
        # expected.json pins line 1683 of w-0's log.
        rows = casefile.query(
            BUNDLE,
            "SELECT l.line_no, l.text FROM lines l JOIN files f ON f.id = l.file_id "
            "WHERE f.path = 'logs/t1v-n-8e41c2d0-w-0/worker.log' AND l.line_no = 1683",
            index=self.db,
        )
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0][0], "1683")
        self.assertIn("Megascale detects a hang that is likely caused by bad TPU chips", rows[0][1])

    def test_columns_nulls_and_empty_results(self):
        with casefile.Session(BUNDLE, index=self.db) as s:
            result = s.execute("SELECT NULL AS missing, 7 AS seven, 'a' || 'b' AS ab")
            self.assertEqual(result.columns, ("missing", "seven", "ab"))
            self.assertEqual(result.rows, [(None, "7", "ab")])
            empty = s.execute("SELECT id FROM files WHERE 0")
            self.assertEqual(empty.rows, [])
            self.assertEqual(empty.columns, ())
            self.assertEqual(s.query("SELECT count(*) FROM files WHERE path = 'no/such/file'"),
                             [("0",)])

    def test_writes_are_refused(self):
        with casefile.Session(BUNDLE, index=self.db) as s:
            for sql in (
                "DELETE FROM files",
                "INSERT INTO files(path) VALUES ('x')",
                "DROP TABLE files",
                "ATTACH DATABASE ':memory:' AS other",
                "PRAGMA journal_mode = DELETE",
            ):
                with self.assertRaises(casefile.ReadOnlyError, msg=sql) as cm:
                    s.query(sql)
                self.assertEqual(cm.exception.status, 501)
                self.assertIsInstance(cm.exception, casefile.QueryError)
            # Nothing was deleted.
            self.assertNotEqual(s.query("SELECT count(*) FROM files"), [("0",)])
            self.assertIn("casefile_session_query", s.last_error)

    def test_bad_sql(self):
        with casefile.Session(BUNDLE, index=self.db) as s:
            with self.assertRaises(casefile.QueryError) as cm:
                s.query("SELEC path FROM files")
            self.assertEqual(cm.exception.status, 500)
            self.assertNotIsInstance(cm.exception, casefile.ReadOnlyError)
            self.assertIn("syntax error", cm.exception.message)
            with self.assertRaises(casefile.QueryError) as cm:
                s.query("SELECT no_such_column FROM files")
            self.assertIn("no_such_column", cm.exception.message)

    def test_row_and_byte_limits(self):
        with casefile.Session(BUNDLE, index=self.db) as s:
            sql = "SELECT value FROM json_each('[10,20,30]')"
            # Exactly as many rows as allowed is no error.
            self.assertEqual(s.query(sql, max_rows=3), [("10",), ("20",), ("30",)])
            with self.assertRaises(casefile.LimitError) as cm:
                s.query(sql, max_rows=2)
            self.assertEqual(cm.exception.status, 400)
            self.assertIn("more than 2 rows", cm.exception.message)
            self.assertNotIsInstance(cm.exception, casefile.QueryTimeoutError)
            # "10" + "20" + "30" is 6 bytes of values.
            self.assertEqual(len(s.query(sql, max_bytes=6)), 3)
            with self.assertRaises(casefile.LimitError) as cm:
                s.query(sql, max_bytes=5)
            self.assertIn("larger than 5 bytes", cm.exception.message)
            with self.assertRaises(ValueError):
                s.query(sql, max_rows=-1)

    def test_timeout(self):
        with casefile.Session(BUNDLE, index=self.db) as s:
            endless = (
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                "SELECT count(*) FROM n"
            )
            with self.assertRaises(casefile.QueryTimeoutError) as cm:
                s.query(endless, timeout=0.2)
            self.assertEqual(cm.exception.status, 401)
            self.assertEqual(cm.exception.status_name, "CASEFILE_E_TIMEOUT")
            # Both a limit and a TimeoutError, as the class promises.
            self.assertIsInstance(cm.exception, casefile.LimitError)
            self.assertIsInstance(cm.exception, TimeoutError)
            self.assertIn("casefile_session_query_ex", s.last_error)
            # A query that ends is not affected by a timeout.
            self.assertEqual(s.query("SELECT 1", timeout=5), [("1",)])

    def test_huge_values_hit_a_limit(self):
        with casefile.Session(BUNDLE, index=self.db) as s:
            for sql in ("SELECT zeroblob(2000000000)", "SELECT length(randomblob(1000000000))"):
                with self.assertRaises(casefile.LimitError, msg=sql) as cm:
                    s.query(sql)
                self.assertIn("longer than 67108864 bytes", cm.exception.message)

    def test_query_indexes_first_when_needed(self):
        # A fresh session (no index() call): query builds or reuses it.
        with casefile.Session(BUNDLE, index=self.db) as s:
            self.assertEqual(s.query("SELECT count(*) > 0 FROM files"), [("1",)])


if __name__ == "__main__":
    unittest.main()
