// File: fuzz/cpio_gzip_fuzzer.cc
//
// The archive readers behind ReadEmbeddedIgnition (lib/iso/cpio.h): Gunzip and ReadCpio, on
// whatever an image's Ignition area or an initrd holds. A first byte chooses whether the rest is
// gzip (gunzipped, then read as cpio) or a cpio archive directly.
//
// Besides "no crash", it checks the writer/reader pair: what ReadCpio returns, written again
// with CpioWriter, gzip'd and gunzipped, reads back as the same paths and contents.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "lib/iso/cpio.h"

namespace {

namespace iso = assisted::iso;

constexpr uint32_t kTypeMask = 0170000;
constexpr uint32_t kDirectory = 0040000;
constexpr uint32_t kSymlink = 0120000;

void CheckRoundTrip(const std::vector<iso::CpioMember>& members) {
  iso::CpioWriter writer;
  for (const iso::CpioMember& member : members) {
    if ((member.mode & kTypeMask) == kDirectory) {
      writer.AddDirectory(member.path);
    } else if ((member.mode & kTypeMask) == kSymlink) {
      writer.AddSymlink(member.path, member.content);
    } else {
      writer.AddFile(member.path, member.content, member.mode & 07777);
    }
  }
  absl::StatusOr<std::string> gzipped = iso::Gzip(writer.Finish());
  if (!gzipped.ok()) std::abort();
  absl::StatusOr<std::string> archive = iso::Gunzip(*gzipped);
  if (!archive.ok()) std::abort();
  absl::StatusOr<std::vector<iso::CpioMember>> again = iso::ReadCpio(*archive);
  if (!again.ok() || again->size() != members.size()) std::abort();
  for (size_t i = 0; i < members.size(); ++i) {
    const bool directory = (members[i].mode & kTypeMask) == kDirectory;  // written without content
    if ((*again)[i].path != members[i].path ||
        (!directory && (*again)[i].content != members[i].content)) {
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  assisted::fuzz::FuzzInput in(data, size);
  const bool gzipped = in.Byte() % 2 == 0;
  std::string archive(in.Rest());
  if (gzipped) {
    absl::StatusOr<std::string> plain = iso::Gunzip(archive);
    if (!plain.ok()) return 0;
    archive = *std::move(plain);
  }
  absl::StatusOr<std::vector<iso::CpioMember>> members = iso::ReadCpio(archive);
  if (members.ok()) CheckRoundTrip(*members);
  return 0;
}
