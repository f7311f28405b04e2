// A lexical pre-scan of XML text that finds elements nested deeper than a limit, before
// tinyxml2 (which recurses once per level while parsing and freeing) sees the text.
#pragma once

#include <string_view>

namespace talon::mjcf {

// The 1-based line of the first start tag that opens nesting level `limit + 1` (the root
// element is level 1), or 0 when the text never nests that deep. Comments, CDATA,
// processing instructions, declarations and quoted attribute values are skipped; the scan
// never fails: malformed text is left for the XML parser to report.
int first_line_nested_deeper_than(std::string_view text, int limit);

}  // namespace talon::mjcf
