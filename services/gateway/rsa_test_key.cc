#include "services/gateway/rsa_test_key.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

namespace assisted::gateway {

std::string NewRsaKeyPem() {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio, &data);
  std::string pem(data, length);
  BIO_free(bio);
  EVP_PKEY_free(key);
  return pem;
}

}  // namespace assisted::gateway
