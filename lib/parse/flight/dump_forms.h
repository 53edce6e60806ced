// The two readers of a dump, one per form (flight_dump.h). Each walks its
// form, hands the top level and each entry to the assembler as JSON, and
// reports damage; neither throws for bad input.
#pragma once

#include <string>
#include <string_view>

#include "parse/flight/dump_assembler.h"

namespace casefile::flight_internal {

// `dump` starts (after blanks or a BOM) with '{'. Reserves the padding.
void ReadJsonDump(std::string& dump, DumpAssembler& out);

// `dump` starts with the pickle PROTO opcode (0x80).
void ReadPickleDump(std::string_view dump, DumpAssembler& out);

}  // namespace casefile::flight_internal
