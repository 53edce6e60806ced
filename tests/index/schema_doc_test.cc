// docs/SCHEMA.md is generated from the schema declaration (schema.cc), and
// the database the writer creates is that declaration.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "index/index_reader.h"
#include "index/index_writer.h"
#include "index/schema.h"
#include "index_fixture.h"
#include "test_util.h"

namespace casefile {
namespace {

TEST(SchemaDoc, CommittedFileMatchesTheDeclaration) {
  const std::string doc_path = std::string(CASEFILE_SOURCE_DIR) + "/docs/SCHEMA.md";
  const std::string expected_path = std::string(CASEFILE_BINARY_DIR) + "/SCHEMA.md.expected";
  std::string expected = RenderSchemaMarkdown();
  std::ifstream in(doc_path, std::ios::binary);
  std::stringstream actual;
  actual << in.rdbuf();
  if (actual.str() != expected) {
    std::ofstream(expected_path, std::ios::binary) << expected;
    FAIL() << doc_path << " differs from the schema declared in lib/index/schema.cc. "
           << "Regenerate it with:\n  cp " << expected_path << " " << doc_path;
  }
}

TEST(SchemaDoc, DatabaseHasTheDeclaredColumns) {
  test::TempDir dir;
  std::string path = dir.Join("index.db");
  IndexWriter(path).Commit();
  auto r = IndexReader::Open(path);
  for (const TableSpec& t : IndexTables()) {
    std::vector<test::Row> cols =
        test::QueryAll(*r, std::string("SELECT name, type, \"notnull\" FROM pragma_table_info('") +
                               t.name + "') ORDER BY cid");
    ASSERT_EQ(cols.size(), t.columns.size()) << t.name;
    for (size_t i = 0; i < cols.size(); ++i) {
      const ColumnSpec& c = t.columns[i];
      EXPECT_EQ(cols[i][0], c.name) << t.name;
      EXPECT_EQ(cols[i][1], c.type) << t.name << "." << c.name;
      EXPECT_EQ(cols[i][2], std::string(c.constraint) == "NOT NULL" ? "1" : "0")
          << t.name << "." << c.name;
      EXPECT_NE(std::string(c.doc), "") << t.name << "." << c.name;
    }
    for (const IndexSpec& ix : t.indexes) {
      EXPECT_EQ(test::QueryOne(*r, std::string("SELECT tbl_name FROM sqlite_master WHERE "
                                               "type = 'index' AND name = '") +
                                       ix.name + "'"),
                t.name);
    }
  }
  for (const ViewSpec& v : IndexViews()) {
    std::vector<test::Row> cols = test::QueryAll(
        *r, std::string("SELECT name FROM pragma_table_info('") + v.name + "') ORDER BY cid");
    ASSERT_EQ(cols.size(), v.columns.size()) << v.name;
    for (size_t i = 0; i < cols.size(); ++i) {
      EXPECT_EQ(cols[i][0], v.columns[i].name) << v.name;
      EXPECT_NE(std::string(v.columns[i].doc), "") << v.name << "." << v.columns[i].name;
    }
  }
  EXPECT_EQ(test::QueryOne(*r, "SELECT sql FROM sqlite_master WHERE name = 'lines'"),
            "CREATE VIRTUAL TABLE lines USING casefile_lines");
}

}  // namespace
}  // namespace casefile
