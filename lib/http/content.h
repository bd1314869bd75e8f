// File: lib/http/content.h
//
// Answers GET and HEAD for a downloadable representation (an ISO, a kernel, an initrd, an iPXE
// script) the way browsers, curl, BMC virtual media and PXE firmware expect: validators (ETag,
// Last-Modified), conditional GET (304), single byte ranges (206 / 416) guarded by If-Range, and
// Content-Disposition. The body stays a list of segments throughout, so a 206 of a spliced ISO is
// still sent with sendfile from the base image plus the few overlay bytes from memory.
//
//   Content iso{body, "application/x-iso9660-image", FormatETag(version), modified, "x.iso"};
//   router.Handle("GET", "/images/{id}.iso"...,
//                 [&](const Request& request) { return ServeContent(request, iso); });

#ifndef ASSISTED_LIB_HTTP_CONTENT_H_
#define ASSISTED_LIB_HTTP_CONTENT_H_

#include <string>

#include "absl/time/time.h"
#include "absl/types/optional.h"
#include "lib/http/body.h"
#include "lib/http/message.h"

namespace assisted::http {

// A representation to download.
struct Content {
  Body body;  // the full content
  std::string content_type = "application/octet-stream";
  // A formatted strong entity tag (FormatETag) that changes whenever any byte does; empty for
  // none. Without one, If-Range can only match by date and If-None-Match never matches.
  std::string etag;
  absl::optional<absl::Time> last_modified;
  // When not empty, a Content-Disposition: attachment naming this file (sanitised).
  std::string filename;
};

// The response to `request` (GET or HEAD; the server drops the body of a HEAD answer) for
// `content`, in RFC 9110 order:
//   1. If-None-Match matches the ETag (weak comparison), or there is no If-None-Match and
//      If-Modified-Since is not before Last-Modified: 304 with the validators, no body.
//   2. A satisfiable single Range, with no If-Range or a matching one (strong ETag or exact
//      date): 206 with Content-Range and just those bytes.
//   3. An unsatisfiable Range (and If-Range absent or matching): 416 with
//      Content-Range: bytes */size.
//   4. Otherwise (no Range, several ranges, a malformed one, a failed If-Range): 200 with all.
// Every 200/206/304/416 carries Accept-Ranges: bytes and the validators; 200/206 the
// Content-Type and Content-Disposition. Callers add caching headers of their own.
Response ServeContent(const Request& request, const Content& content);

}  // namespace assisted::http

#endif  // ASSISTED_LIB_HTTP_CONTENT_H_
