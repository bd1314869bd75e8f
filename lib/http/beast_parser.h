// File: lib/http/beast_parser.h
//
// Boost.Beast's HTTP/1.1 request parser as the server (and fuzz/http_request_fuzzer) use it.
// Include it instead of Beast's parser headers, and before anything else that includes them
// (boost/beast/http.hpp, http/parser.hpp, http/read.hpp): it compiles the parser with Boost's
// assertions off.
//
// Why: Beast before 1.86 asserts that a chunk header it resumes after the last chunk holds at
// least 5 bytes (BOOST_ASSERT(n >= 5) in basic_parser::parse_chunk_header). That is false when
// the last chunk "0\r\n" and the "\r" ending the message arrive in separate reads, which any
// client can arrange, and with assertions on (every build but -c opt) it aborted the whole
// server. The code after the assertion handles the case (it asks for more input); upstream
// relaxed the assertion the same way (boostorg/beast#2861). Release builds already run exactly
// this code.

#ifndef ASSISTED_LIB_HTTP_BEAST_PARSER_H_
#define ASSISTED_LIB_HTTP_BEAST_PARSER_H_

#include "boost/version.hpp"

#if BOOST_VERSION < 108600 && !defined(BOOST_DISABLE_ASSERTS)
#define ASSISTED_BEAST_ASSERTS_OFF
#define BOOST_DISABLE_ASSERTS
#include "boost/assert.hpp"  // re-read: BOOST_ASSERT follows BOOST_DISABLE_ASSERTS at each include
#endif

#include "boost/beast/http/parser.hpp"
#include "boost/beast/http/read.hpp"
#include "boost/beast/http/string_body.hpp"

#ifdef ASSISTED_BEAST_ASSERTS_OFF
#undef ASSISTED_BEAST_ASSERTS_OFF
#undef BOOST_DISABLE_ASSERTS
#include "boost/assert.hpp"  // assertions back on for whatever the includer compiles next
#endif

#endif  // ASSISTED_LIB_HTTP_BEAST_PARSER_H_
