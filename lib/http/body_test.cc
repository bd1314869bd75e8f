#include "lib/http/body.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "lib/testing/status_matchers.h"

namespace assisted::http {
namespace {

using ::assisted::testing::IsOk;
using ::assisted::testing::IsOkAndHolds;
using ::assisted::testing::StatusIs;
using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string WriteFile(const std::string& name, const std::string& contents) {
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

TEST(SpoolFile, WhatIsAppendedIsServedFromANamelessFile) {
  absl::StatusOr<SpoolFile> spool = SpoolFile::Create(TempPath(""));
  ASSERT_THAT(spool, IsOk());
  std::string expected;
  for (int i = 0; i < 100; ++i) {
    const std::string chunk(1000 + i, static_cast<char>('a' + i % 26));
    ASSERT_THAT(spool->Append(chunk), IsOk());
    expected += chunk;
  }
  EXPECT_EQ(spool->size(), expected.size());
  absl::StatusOr<std::shared_ptr<const SharedFile>> file = std::move(*spool).Finish();
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ((*file)->size(), expected.size());
  Body body;
  body.Append(Segment::WholeFile(*file));
  EXPECT_THAT(body.ReadAll(), IsOkAndHolds(expected));
  EXPECT_THAT(std::move(*spool).Finish(), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(SpoolFile::Create(TempPath("missing-dir")),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("missing-dir")));
}

TEST(SharedFile, OpensRegularFilesOnly) {
  const std::string path = WriteFile("shared.bin", "0123456789");
  absl::StatusOr<std::shared_ptr<const SharedFile>> file = SharedFile::Open(path);
  ASSERT_THAT(file, IsOk());
  EXPECT_EQ((*file)->size(), 10u);
  EXPECT_GE((*file)->fd(), 0);
  EXPECT_GT((*file)->modified(), absl::UnixEpoch());

  EXPECT_THAT(SharedFile::Open(TempPath("missing.bin")),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("missing.bin")));
  EXPECT_THAT(SharedFile::Open(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp"),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST(Segment, FileRangesMustLieInsideTheFile) {
  auto file = *SharedFile::Open(WriteFile("range.bin", "0123456789"));
  EXPECT_THAT(Segment::File(file, 0, 10), IsOk());
  EXPECT_THAT(Segment::File(file, 10, 0), IsOk());
  EXPECT_THAT(Segment::File(file, 3, 8), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(Segment::File(file, 11, 0), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(Segment::File(file, 1, UINT64_MAX), StatusIs(absl::StatusCode::kOutOfRange));
  EXPECT_THAT(Segment::File(nullptr, 0, 0), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(Segment, SubClampsAndShares) {
  auto file = *SharedFile::Open(WriteFile("sub.bin", "0123456789"));
  const Segment whole = Segment::WholeFile(file);
  const Segment middle = whole.Sub(2, 5);
  EXPECT_TRUE(middle.is_file());
  EXPECT_EQ(middle.file(), file.get());
  EXPECT_EQ(middle.file_offset(), 2u);
  EXPECT_EQ(middle.size(), 5u);
  EXPECT_EQ(middle.Sub(4, 100).size(), 1u);
  EXPECT_EQ(middle.Sub(4, 100).file_offset(), 6u);
  EXPECT_EQ(middle.Sub(9, 1).size(), 0u);

  const Segment memory = Segment::Memory("hello world");
  EXPECT_FALSE(memory.is_file());
  EXPECT_EQ(memory.Sub(6, 5).memory(), "world");
  EXPECT_EQ(memory.Sub(6, 5).Sub(1, 2).memory(), "or");
}

TEST(Body, FileAndMemorySegmentsReadBackInOrder) {
  auto file = *SharedFile::Open(WriteFile("body.bin", "ABCDEFGHIJ"));
  Body body;
  body.Append(*Segment::File(file, 0, 4));
  body.Append(Segment::Memory("----"));
  body.Append(Segment::Memory(""));  // dropped
  body.Append(*Segment::File(file, 8, 2));
  EXPECT_EQ(body.size(), 10u);
  EXPECT_EQ(body.segments().size(), 3u);
  EXPECT_THAT(body.ReadAll(), IsOkAndHolds(std::string("ABCD----IJ")));
  EXPECT_THAT(body.Slice(3, 6).ReadAll(), IsOkAndHolds(std::string("D----I")));
  EXPECT_THAT(body.Slice(8, 100).ReadAll(), IsOkAndHolds(std::string("IJ")));
  EXPECT_TRUE(body.Slice(10, 5).empty());
  EXPECT_THAT(Body("plain").ReadAll(), IsOkAndHolds(std::string("plain")));
}

}  // namespace
}  // namespace assisted::http
