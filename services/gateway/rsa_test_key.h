// File: services/gateway/rsa_test_key.h
//
// A fresh RSA private key for tests and fuzz targets that sign RS256 tokens the way an identity
// provider would (services/gateway/jwt.h). Generating one takes tens of milliseconds: make it
// once per test or per process.

#ifndef ASSISTED_SERVICES_GATEWAY_RSA_TEST_KEY_H_
#define ASSISTED_SERVICES_GATEWAY_RSA_TEST_KEY_H_

#include <string>

namespace assisted::gateway {

// A new 2048-bit RSA key as unencrypted PEM (what SignRs256 and PublicJwks take).
std::string NewRsaKeyPem();

}  // namespace assisted::gateway

#endif  // ASSISTED_SERVICES_GATEWAY_RSA_TEST_KEY_H_
