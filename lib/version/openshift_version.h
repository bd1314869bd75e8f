// File: lib/version/openshift_version.h
//
// OpenShift version strings as the catalogs key them: base OS images and release images serve a
// minor version ("4.16"), while clusters and requests may name a patch release ("4.16.3") or a
// pre-release ("4.17.0-ec.2"). One helper maps every spelling to the minor version it belongs to,
// so the gateway, the image service and the orchestrator agree on what "the same version" means.
//
//   MinorVersion("4.16.3") == "4.16";  MinorVersion("4.16") == "4.16";  MinorVersion("4") == "4"

#ifndef ASSISTED_LIB_VERSION_OPENSHIFT_VERSION_H_
#define ASSISTED_LIB_VERSION_OPENSHIFT_VERSION_H_

#include <string>

#include "absl/strings/string_view.h"

namespace assisted::version {

// "<major>.<minor>" of `version`: everything before the second dot (a pre-release suffix of a
// two-part version stays, as "4.17-ec" names no patch). Text without two parts is returned as
// it is, so a malformed version only ever matches itself.
std::string MinorVersion(absl::string_view version);

}  // namespace assisted::version

#endif  // ASSISTED_LIB_VERSION_OPENSHIFT_VERSION_H_
