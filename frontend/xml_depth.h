// A guard against deeply nested XML, run on the raw text before tinyxml2 sees it.
//
// tinyxml2 parses (and deletes) element trees recursively, so a document nested 100 000
// levels deep would overflow the stack of an unguarded version; tinyxml2 9 stops at 100
// levels but older versions have no limit. Scanning the text first keeps Talon safe
// whatever tinyxml2 is linked, and lets the error name the line where the limit is crossed.
// Both readers use it (frontend/urdf/reader.cpp, frontend/mjcf/xml_tree.cpp).
#pragma once

#include <string_view>

namespace talon {

// The 1-based line of the first start tag that nests deeper than `max_depth` elements (the
// root element is level 1, a self-closing element a level too), or 0 when the text stays
// within the limit. Comments, CDATA, processing instructions,
// declarations and quoted attribute values are skipped, so a '<' or '>' inside them does
// not count. A stray closing tag does not lower the depth below 0. Malformed text ends the
// scan early (the XML parser reports it).
int first_line_nested_deeper_than(std::string_view xml, int max_depth);

}  // namespace talon
