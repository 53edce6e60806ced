// The index schema, declared once as data: every table with its columns, SQL
// types and a line of documentation each. The CREATE statements and
// docs/SCHEMA.md are both generated from this declaration, so the database and
// its documentation cannot drift apart (tests/index/schema_doc_test.cc checks
// the committed file against RenderSchemaMarkdown()).
#pragma once

#include <string>
#include <vector>

namespace casefile {

struct ColumnSpec {
  const char* name;
  const char* type;        // SQL type as declared (INTEGER, TEXT, REAL, BLOB)
  const char* constraint;  // "" or e.g. "PRIMARY KEY", "NOT NULL"
  const char* doc;         // one line: meaning, unit, NULL convention
};

struct IndexSpec {
  const char* name;
  const char* columns;  // "file_id, pid, tid"
  bool unique;
  const char* doc;  // which lookups it serves
};

struct TableSpec {
  const char* name;
  const char* doc;
  std::vector<ColumnSpec> columns;
  const char* table_constraint;  // "" or e.g. "PRIMARY KEY (file_id, block_no)"
  std::vector<IndexSpec> indexes;
};

struct ViewSpec {
  const char* name;
  const char* doc;
  std::vector<ColumnSpec> columns;  // type: what the column holds; constraint unused
  std::string select;
};

// Plain tables, in creation order.
const std::vector<TableSpec>& IndexTables();

// Views, created after the tables and the `lines` virtual table.
const std::vector<ViewSpec>& IndexViews();

// The columns of the `lines` virtual table, in the order the module serves
// them (lines_vtab.cc relies on this order).
const std::vector<ColumnSpec>& LinesVtabColumns();

// Module name of the `lines` virtual table.
inline constexpr const char* kLinesModuleName = "casefile_lines";

// The statements that create the tables, the `lines` virtual table and the
// views, in order, on an empty database.
std::vector<std::string> SchemaStatements();

// The statements that create the secondary indexes. The writer runs them
// after the bulk load: building an index from sorted rows once is cheaper
// than keeping it up to date row by row.
std::vector<std::string> IndexStatements();

// The declaration handed to sqlite3_declare_vtab for `lines`.
std::string LinesVtabDeclaration();

// The full text of docs/SCHEMA.md.
std::string RenderSchemaMarkdown();

}  // namespace casefile
