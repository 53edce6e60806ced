"""Loading the library, its version, the ABI check, status names, and the
ctypes mirrors of the options structs against the C compiler's layout."""

import ctypes
import os
import re
import subprocess
import sys
import unittest

import casefile
from casefile import _lib, _structs

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_python(code, **env_changes):
    env = dict(os.environ)
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    env["PYTHONPATH"] = PACKAGE_ROOT
    return subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=60)


class VersionTest(unittest.TestCase):
    def test_version_string_matches_number(self):
        # casefile.h: number = MAJOR*1000000 + MINOR*1000 + PATCH.
        text = casefile.version()
        self.assertRegex(text, r"^\d+\.\d+\.\d+$")
        major, minor, patch = (int(x) for x in text.split("."))
        self.assertEqual(casefile.version_number(), major * 1000000 + minor * 1000 + patch)
        self.assertEqual(major, casefile.EXPECTED_ABI_MAJOR)

    def test_library_path_is_the_one_asked_for(self):
        wanted = os.environ.get("CASEFILE_LIBRARY")
        self.assertTrue(wanted, "ctest sets CASEFILE_LIBRARY")
        self.assertEqual(os.path.realpath(casefile.library_path()), os.path.realpath(wanted))

    def test_status_string(self):
        # Descriptions from error_c.cc's table, as documented per status.
        self.assertEqual(casefile.status_string(201), "not found")
        self.assertEqual(casefile.status_string(501), "query refused: read-only")


class LoadFailureTest(unittest.TestCase):
    """Each in a fresh interpreter: the library is loaded once per process."""

    def test_missing_library_path(self):
        missing = os.path.join(PACKAGE_ROOT, "no-such-dir", "libcasefile.so.0")
        r = run_python("import casefile; casefile.version()", CASEFILE_LIBRARY=missing)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("casefile._lib.LibraryError", r.stderr)
        self.assertIn(missing, r.stderr)
        self.assertIn("CASEFILE_LIBRARY", r.stderr)

    def test_import_needs_no_library(self):
        # Only the first call loads it, so a broken setting does not break
        # `import casefile` (or help(casefile)).
        r = run_python("import casefile; print(casefile.Session.__name__)",
                       CASEFILE_LIBRARY="/nonexistent/libcasefile.so.0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "Session")

    def test_file_that_is_not_a_shared_object(self):
        bogus = os.path.abspath(__file__)  # a Python file, not an ELF object
        r = run_python("import casefile; casefile.version()", CASEFILE_LIBRARY=bogus)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("LibraryError", r.stderr)
        self.assertIn(bogus, r.stderr)

    def test_library_of_another_abi_major_is_refused(self):
        fake = os.environ.get("CASEFILE_PY_FAKE_ABI1")
        self.assertTrue(fake, "ctest sets CASEFILE_PY_FAKE_ABI1")
        r = run_python("import casefile; casefile.version()", CASEFILE_LIBRARY=fake)
        self.assertNotEqual(r.returncode, 0)
        # fake_abi1.c says 1002003: casefile 1.2.3, ABI 1.
        self.assertIn("casefile 1.2.3 (ABI 1); this Python binding needs ABI 0", r.stderr)

    def test_symbol_missing_from_an_older_library(self):
        # fake_abi1.c exports only the two version functions: every other
        # call names the missing symbol instead of failing at load.
        library = _lib.Library(ctypes.CDLL(os.environ["CASEFILE_PY_FAKE_ABI1"]), "fake.so")
        self.assertIn("casefile_session_open", library.missing)
        self.assertNotIn("casefile_version_number", library.missing)
        with self.assertRaisesRegex(casefile.LibraryError,
                                    r"fake\.so has no casefile_session_open.*1\.2\.3"):
            library.session_open

    def test_check_abi(self):
        _lib.check_abi(2000, "lib")  # 0.2.0
        _lib.check_abi(999999, "lib")  # 0.999.999
        with self.assertRaisesRegex(casefile.LibraryError, r"casefile 1\.0\.0 \(ABI 1\)"):
            _lib.check_abi(1000000, "lib")

    def test_lookup_order_without_environment(self):
        saved = os.environ.pop("CASEFILE_LIBRARY")
        try:
            paths = _lib.candidate_paths()
        finally:
            os.environ["CASEFILE_LIBRARY"] = saved
        package = os.path.join(PACKAGE_ROOT, "casefile")
        # In the source tree there is no _install_layout.py: beside the
        # package, then <prefix>/lib for <prefix>/lib/python3/dist-packages,
        # then the system loader's name last.
        self.assertEqual(paths[0], os.path.join(package, "libcasefile.so.0"))
        self.assertEqual(paths[1], os.path.normpath(os.path.join(package, "..", "..", "..",
                                                                 "libcasefile.so.0")))
        self.assertEqual(paths[-1], "libcasefile.so.0")

    def test_environment_is_the_only_candidate_when_set(self):
        self.assertEqual(_lib.candidate_paths(), [os.environ["CASEFILE_LIBRARY"]])


class ErrorClassTest(unittest.TestCase):
    def test_status_maps_to_class(self):
        cases = {
            100: casefile.ArgumentError,
            101: casefile.MisuseError,
            102: casefile.UnknownAnalyzerError,
            103: casefile.VersionError,
            200: casefile.CasefileIOError,
            201: casefile.NotFoundError,
            300: casefile.CorruptError,
            301: casefile.UnsupportedError,
            302: casefile.IndexVersionError,
            303: casefile.RulesError,
            400: casefile.LimitError,
            500: casefile.QueryError,
            501: casefile.ReadOnlyError,
            600: casefile.PluginError,
            900: casefile.NoMemoryError,
            901: casefile.AbortedError,
            999: casefile.InternalError,
        }
        from casefile.errors import error_for

        for status, cls in cases.items():
            e = error_for(status, "fn: message")
            self.assertIs(type(e), cls)
            self.assertIsInstance(e, casefile.CasefileError)
            self.assertEqual(e.status, status)
            self.assertEqual(e.message, "fn: message")
            self.assertTrue(e.status_name.startswith("CASEFILE_E_"), e.status_name)
        self.assertEqual(error_for(201, "x").status_name, "CASEFILE_E_NOT_FOUND")
        self.assertEqual(str(error_for(102, "no such analyzer 'x'")),
                         "no such analyzer 'x' [CASEFILE_E_UNKNOWN_ANALYZER]")
        # An unknown status still gives a CasefileError.
        self.assertIs(type(error_for(777, "x")), casefile.CasefileError)
        self.assertEqual(error_for(777, "x").status_name, "CASEFILE_STATUS_777")
        # A refused write is a query error too.
        self.assertTrue(issubclass(casefile.ReadOnlyError, casefile.QueryError))

    def test_rules_error_lists_messages(self):
        from casefile.errors import error_for

        e = error_for(303, "casefile_rules_add_file: 2 errors in rule pack p\n"
                           "pack.json:3:5: unknown key 'sevrity'\npack.json:9:1: missing 'code'\n")
        self.assertEqual(e.errors, ["pack.json:3:5: unknown key 'sevrity'",
                                    "pack.json:9:1: missing 'code'"])


class LayoutTest(unittest.TestCase):
    """The ctypes structs against the C compiler: capi/abi/abi_layout.c (the
    ABI check's own layout dump, built for this test) prints every public
    struct as "struct T size N align A" and each of its fields as
    "field T F offset O size S"; the structs the binding mirrors must agree
    with it. Other lines (enums, macros, structs the binding does not mirror)
    are not the binding's concern."""

    MIRRORS = {
        "casefile_open_options": _structs.OpenOptions,
        "casefile_analyze_options": _structs.AnalyzeOptions,
        "casefile_diff_options": _structs.DiffOptions,
        "casefile_query_options": _structs.QueryOptions,
        "casefile_collect_options": _structs.CollectOptions,
        "casefile_analyzer_def": _structs.AnalyzerDef,
    }

    def test_layout_matches_c(self):
        dump = os.environ.get("CASEFILE_PY_ABI_LAYOUT")
        self.assertTrue(dump, "ctest sets CASEFILE_PY_ABI_LAYOUT")
        output = subprocess.run([dump], stdout=subprocess.PIPE, text=True, check=True).stdout
        checked = set()
        fields_seen = set()
        for line in output.splitlines():
            m = re.match(r"^struct (\w+) size (\d+) align \d+$", line)
            if m:
                if m.group(1) in self.MIRRORS:
                    struct = self.MIRRORS[m.group(1)]
                    self.assertEqual(ctypes.sizeof(struct), int(m.group(2)), line)
                    checked.add(m.group(1))
                continue
            m = re.match(r"^field (\w+) (\w+) offset (\d+) size (\d+)$", line)
            if m and m.group(1) in self.MIRRORS:
                field = getattr(self.MIRRORS[m.group(1)], m.group(2))
                self.assertEqual(field.offset, int(m.group(3)), line)
                self.assertEqual(field.size, int(m.group(4)), line)
                fields_seen.add((m.group(1), m.group(2)))
        self.assertEqual(checked, set(self.MIRRORS))
        # Every ctypes field is one the dump printed (none invented).
        for c_name, struct in self.MIRRORS.items():
            for field_name, _ in struct._fields_:
                self.assertIn((c_name, field_name), fields_seen)

    def test_options_versions_are_the_headers(self):
        header = os.path.join(PACKAGE_ROOT, "..", "..", "include", "casefile.h")
        with open(header, encoding="utf-8") as f:
            text = f.read()
        for macro, value in [
            ("CASEFILE_OPEN_OPTIONS_VERSION", _structs.OPEN_OPTIONS_VERSION),
            ("CASEFILE_ANALYZE_OPTIONS_VERSION", _structs.ANALYZE_OPTIONS_VERSION),
            ("CASEFILE_QUERY_OPTIONS_VERSION", _structs.QUERY_OPTIONS_VERSION),
            ("CASEFILE_COLLECT_OPTIONS_VERSION", _structs.COLLECT_OPTIONS_VERSION),
            ("CASEFILE_DIFF_OPTIONS_VERSION", _structs.DIFF_OPTIONS_VERSION),
            ("CASEFILE_ANALYZER_DEF_VERSION", _structs.ANALYZER_DEF_VERSION),
        ]:
            m = re.search(r"#define %s (\d+)" % macro, text)
            self.assertTrue(m, macro)
            self.assertEqual(int(m.group(1)), value, macro)
        m = re.search(r"#define CASEFILE_VERSION_MAJOR (\d+)", text)
        self.assertEqual(int(m.group(1)), casefile.EXPECTED_ABI_MAJOR)

    def test_every_stable_function_is_bound(self):
        # The whole stable API is wrapped; the experimental section (behind
        # CASEFILE_EXPERIMENTAL) may change in any release and is not.
        header = os.path.join(PACKAGE_ROOT, "..", "..", "include", "casefile.h")
        with open(header, encoding="utf-8") as f:
            stable = f.read().split("#ifdef CASEFILE_EXPERIMENTAL")[0]
        declared = set(re.findall(r"CASEFILE_API[^;]*?\b(casefile_[a-z0-9_]+)\(", stable))
        self.assertGreater(len(declared), 80)
        self.assertEqual(sorted(declared - set(_lib.PROTOTYPES)), [])

    def test_every_prototype_is_declared_in_the_header(self):
        header = os.path.join(PACKAGE_ROOT, "..", "..", "include", "casefile.h")
        with open(header, encoding="utf-8") as f:
            declared = set(re.findall(r"\b(casefile_[a-z0-9_]+)\(", f.read()))
        for name in _lib.PROTOTYPES:
            self.assertIn(name, declared)


if __name__ == "__main__":
    unittest.main()
