#include "lib/crypto/sealed.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "lib/file/read_file.h"
#include "lib/random/random.h"

namespace assisted::crypto {
namespace {

constexpr char kVersion1 = 0x01;

using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

std::string HeaderOf(absl::string_view key) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), digest);
  std::string header(1, kVersion1);
  header.append(reinterpret_cast<const char*>(digest), kSealKeyIdSize);
  return header;
}

const unsigned char* Bytes(absl::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

absl::Status OpenSslError(absl::string_view step) {
  return absl::InternalError(absl::StrCat("AES-256-GCM ", step, " failed"));
}

}  // namespace

absl::StatusOr<Sealer> Sealer::FromKeys(std::string current, std::vector<std::string> older) {
  std::vector<Key> keys;
  older.insert(older.begin(), std::move(current));
  for (std::string& secret : older) {
    if (secret.size() != kSealKeySize) {
      return absl::InvalidArgumentError(
          absl::StrCat("a sealing key must be ", kSealKeySize, " bytes, got ", secret.size()));
    }
    std::string header = HeaderOf(secret);
    keys.push_back({std::move(secret), std::move(header)});
  }
  return Sealer(std::move(keys));
}

absl::StatusOr<std::string> Sealer::ReadKeyFile(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("no key file given");
  absl::StatusOr<std::string> contents = ReadFile(path, "sealing key file");
  if (!contents.ok()) return contents.status();
  if (contents->size() == kSealKeySize) return *std::move(contents);
  std::string decoded;
  if (absl::Base64Unescape(absl::StripAsciiWhitespace(*contents), &decoded) &&
      decoded.size() == kSealKeySize) {
    return decoded;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("sealing key file ", path, " must hold ", kSealKeySize,
                   " bytes, raw or base64 (e.g. `head -c 32 /dev/urandom | base64`); it holds ",
                   contents->size(), " bytes that are neither"));
}

absl::StatusOr<Sealer> Sealer::FromFiles(const std::string& current_file,
                                         const std::vector<std::string>& older_files) {
  absl::StatusOr<std::string> current = ReadKeyFile(current_file);
  if (!current.ok()) return current.status();
  std::vector<std::string> older;
  for (const std::string& file : older_files) {
    absl::StatusOr<std::string> key = ReadKeyFile(file);
    if (!key.ok()) return key.status();
    older.push_back(*std::move(key));
  }
  return FromKeys(*std::move(current), std::move(older));
}

absl::StatusOr<std::string> Sealer::Seal(absl::string_view plaintext,
                                         absl::string_view associated_data) const {
  const Key& key = keys_.front();
  absl::StatusOr<std::string> nonce = SecureRandomBytes(kSealNonceSize);
  if (!nonce.ok()) return nonce.status();
  std::string envelope = key.header + *nonce;
  const size_t body = envelope.size();
  envelope.resize(body + plaintext.size() + kSealTagSize);
  auto* out = reinterpret_cast<unsigned char*>(envelope.data());

  CipherContext ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
  int written = 0;
  if (ctx == nullptr ||
      EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, Bytes(key.secret), Bytes(*nonce)) !=
          1 ||
      EVP_EncryptUpdate(ctx.get(), nullptr, &written, Bytes(associated_data),
                        static_cast<int>(associated_data.size())) != 1 ||
      EVP_EncryptUpdate(ctx.get(), out + body, &written, Bytes(plaintext),
                        static_cast<int>(plaintext.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), out + body + written, &written) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kSealTagSize,
                          out + body + plaintext.size()) != 1) {
    return OpenSslError("sealing");
  }
  return envelope;
}

absl::StatusOr<std::string> Sealer::Open(absl::string_view envelope,
                                         absl::string_view associated_data) const {
  if (envelope.size() < kSealOverhead || envelope[0] != kVersion1) {
    return absl::DataLossError("sealed value is truncated or of an unknown version");
  }
  const absl::string_view header = envelope.substr(0, kSealHeaderSize);
  const Key* key = nullptr;
  for (const Key& candidate : keys_) {
    if (candidate.header == header) key = &candidate;
  }
  if (key == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("sealed with key ", absl::BytesToHexString(header.substr(1)),
                     ", which is not configured (give it in --secrets-old-key-files)"));
  }
  const absl::string_view nonce = envelope.substr(kSealHeaderSize, kSealNonceSize);
  const absl::string_view ciphertext =
      envelope.substr(kSealHeaderSize + kSealNonceSize, envelope.size() - kSealOverhead);
  std::string tag(envelope.substr(envelope.size() - kSealTagSize));
  std::string plaintext(ciphertext.size(), '\0');
  auto* out = reinterpret_cast<unsigned char*>(plaintext.data());

  CipherContext ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
  int written = 0;
  if (ctx == nullptr ||
      EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, Bytes(key->secret), Bytes(nonce)) !=
          1 ||
      EVP_DecryptUpdate(ctx.get(), nullptr, &written, Bytes(associated_data),
                        static_cast<int>(associated_data.size())) != 1 ||
      EVP_DecryptUpdate(ctx.get(), out, &written, Bytes(ciphertext),
                        static_cast<int>(ciphertext.size())) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kSealTagSize, tag.data()) != 1) {
    return OpenSslError("opening");
  }
  if (EVP_DecryptFinal_ex(ctx.get(), out + written, &written) != 1) {
    return absl::DataLossError(
        "sealed value does not open: tampered with, or moved from where it was sealed");
  }
  return plaintext;
}

bool Sealer::SealedWithCurrentKey(absl::string_view envelope) const {
  return envelope.size() >= kSealOverhead && envelope.substr(0, kSealHeaderSize) == Header();
}

}  // namespace assisted::crypto
