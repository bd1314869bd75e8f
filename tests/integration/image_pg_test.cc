// The image service as a real process: a discovery ISO for an infra-env stored in the real
// inventory, downloaded over HTTP through a signed URL, is the base image outside its embed
// areas, still readable by xorriso, carries a config.ign that ignition-validate accepts, and
// answers ranges at every boundary exactly like the full body.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "assisted/image/v1/image_service.grpc.pb.h"
#include "assisted/inventory/v1/inventory_service.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "lib/file/read_file.h"
#include "lib/iso/cpio.h"
#include "lib/iso/embed.h"
#include "lib/iso/iso9660.h"
#include "lib/iso/test_image.h"
#include "lib/process/subprocess.h"
#include "lib/testing/status_matchers.h"
#include "tests/harness/postgres_test.h"
#include "tests/harness/probes.h"
#include "tests/harness/service_launcher.h"

namespace assisted::testing {
namespace {

namespace inv = ::assisted::inventory::v1;
namespace img = ::assisted::image::v1;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class ImageTest : public PostgresTest {
 protected:
  void SetUp() override {
    PostgresTest::SetUp();
    dir_ = ::testing::TempDir() + "/image-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
    ASSERT_THAT(iso::BuildTestImage(runner_, {}, dir_ + "/build", dir_ + "/base.iso"), IsOk());
    auto inventory = LaunchedService::Launch(
        {.binary = "services/inventory/assisted-inventory", .args = {"--postgres-dsn=" + dsn()}});
    ASSERT_THAT(inventory, IsOk());
    inventory_ = *std::move(inventory);
    auto http_port = FreePort();
    ASSERT_THAT(http_port, IsOk());
    base_url_ = absl::StrCat("http://127.0.0.1:", *http_port);
    auto image = LaunchedService::Launch(
        {.binary = "services/image/assisted-image",
         .args = {"--inventory-address=" + inventory_->grpc_target(),
                  absl::StrCat("--http-listen=127.0.0.1:", *http_port), "--public-url=" + base_url_,
                  "--image-cache-dir=" + dir_ + "/cache", "--default-openshift-version=4.16",
                  absl::StrCat(R"(--os-images=[{"openshift_version":"4.16",)",
                               R"("cpu_architecture":"x86_64","url":"file://)", dir_,
                               R"(/base.iso","version":"416.94.1"}])")}});
    ASSERT_THAT(image, IsOk());
    image_ = *std::move(image);
    // Ready once the base image is fetched and verified: the health Watch says so.
    ASSERT_TRUE(
        WaitServing(image_->grpc_target(), "assisted.image.v1.ImageService", absl::Seconds(10)))
        << image_->Log();

    auto inventory_stub = inv::InventoryService::NewStub(
        grpc::CreateChannel(inventory_->grpc_target(), grpc::InsecureChannelCredentials()));
    inv::CreateInfraEnvRequest create;
    create.mutable_infra_env()->set_name("discovery");
    create.mutable_infra_env()->set_ssh_authorized_key(
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test");
    create.set_pull_secret(R"({"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}})");
    grpc::ClientContext context;
    ASSERT_TRUE(inventory_stub->CreateInfraEnv(&context, create, &infra_env_).ok());
    image_stub_ = img::ImageService::NewStub(
        grpc::CreateChannel(image_->grpc_target(), grpc::InsecureChannelCredentials()));
  }

  void TearDown() override {
    if (HasFailure() && image_ != nullptr) std::cerr << image_->Log();
  }

  img::GetImageUrlResponse Urls() {
    img::GetImageUrlRequest request;
    request.set_infra_env_id(infra_env_.id());
    img::GetImageUrlResponse response;
    grpc::ClientContext context;
    const grpc::Status status = image_stub_->GetImageUrl(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  process::CommandResult Run(std::vector<std::string> argv, const std::string& cwd = "") {
    auto result = runner_.Run({.argv = argv, .working_dir = cwd});
    EXPECT_THAT(result, IsOk());
    return result.ok() ? *result : process::CommandResult{};
  }

  process::LocalProcessRunner runner_;
  std::string dir_;
  std::string base_url_;
  std::unique_ptr<LaunchedService> inventory_;
  std::unique_ptr<LaunchedService> image_;
  std::unique_ptr<img::ImageService::Stub> image_stub_;
  types::v1::InfraEnv infra_env_;
};

TEST_F(ImageTest, TheDownloadedIsoCarriesAValidDiscoveryIgnitionAndIsOtherwiseTheBase) {
  const img::GetImageUrlResponse urls = Urls();
  EXPECT_THAT(urls.url(), StartsWith(base_url_ + "/images/"));
  EXPECT_THAT(urls.url(), HasSubstr("/discovery.iso"));
  EXPECT_LT(urls.url().size(), 120u);  // short enough for BMC virtual media
  auto download = HttpGet(urls.url(), absl::Seconds(30));
  ASSERT_THAT(download, IsOk());
  ASSERT_EQ(download->status, 200);
  const std::string base = ReadFile(dir_ + "/base.iso", "test file").value_or("");
  ASSERT_EQ(download->body.size(), base.size());
  EXPECT_EQ(download->headers["content-length"], absl::StrCat(base.size()));
  EXPECT_EQ(download->headers["accept-ranges"], "bytes");
  EXPECT_THAT(download->headers["etag"], StartsWith("\""));
  EXPECT_THAT(download->headers["content-disposition"], HasSubstr("discovery.iso"));

  // Identical to the base outside the embed and kargs areas.
  const int fd = open((dir_ + "/base.iso").c_str(), O_RDONLY | O_CLOEXEC);
  auto reader = iso::IsoReader::Open(fd, "base.iso");
  ASSERT_THAT(reader, IsOk());
  auto areas = iso::FindEmbedAreas(*reader);
  ASSERT_THAT(areas, IsOk());
  std::string outside = download->body;
  auto restore = [&](uint64_t offset, uint64_t size) {
    outside.replace(offset, size, base.substr(offset, size));
  };
  restore(areas->ignition.offset, areas->ignition.size);
  for (const iso::KargsArea& area : areas->kargs) restore(area.offset, area.size);
  EXPECT_TRUE(outside == base);
  close(fd);

  // xorriso reads it; the embed area unpacks to a config.ign that ignition-validate accepts.
  const std::string iso_path = dir_ + "/discovery.iso";
  std::ofstream(iso_path, std::ios::binary) << download->body;
  const std::string out = dir_ + "/out";
  std::filesystem::create_directories(out);
  Run({"xorriso", "-osirrox", "on", "-indev", iso_path, "-extract", "/images/ignition.img",
       out + "/ignition.img"});
  auto cpio = iso::Gunzip(ReadFile(out + "/ignition.img", "test file").value_or(""));
  ASSERT_THAT(cpio, IsOk());
  std::ofstream(out + "/ignition.cpio", std::ios::binary) << *cpio;
  EXPECT_EQ(Run({"sh", "-c", "cpio -idm --quiet < ignition.cpio"}, out).exit_code, 0);
  const std::string config = ReadFile(out + "/config.ign", "test file").value_or("");
  EXPECT_THAT(config, HasSubstr("assisted-agent.service"));
  EXPECT_THAT(config, HasSubstr(infra_env_.id()));
  const auto validated = Run({"ignition-validate", out + "/config.ign"});
  EXPECT_EQ(validated.exit_code, 0) << validated.stdout_data << validated.stderr_data;
}

TEST_F(ImageTest, RangesAtEveryBoundaryEqualTheSameSliceOfTheFullBody) {
  const std::string url = Urls().url();
  auto full = HttpGet(url, absl::Seconds(30));
  ASSERT_THAT(full, IsOk());
  const uint64_t size = full->body.size();
  const int fd = open((dir_ + "/base.iso").c_str(), O_RDONLY | O_CLOEXEC);
  auto areas = iso::FindEmbedAreas(*iso::IsoReader::Open(fd, "base.iso"));
  close(fd);
  ASSERT_THAT(areas, IsOk());
  const uint64_t area = areas->ignition.offset;
  const uint64_t area_end = area + areas->ignition.size;
  struct Case {
    std::string range;
    uint64_t first, last;
  };
  const std::vector<Case> cases = {
      {"bytes=0-0", 0, 0},
      {absl::StrCat("bytes=", size - 1, "-"), size - 1, size - 1},
      {absl::StrCat("bytes=", area - 10, "-", area + 10), area - 10, area + 10},
      {absl::StrCat("bytes=", area_end - 5, "-", area_end + 5), area_end - 5, area_end + 5},
      {"bytes=-100", size - 100, size - 1},
      {absl::StrCat("bytes=", areas->kargs[0].offset - 1, "-", areas->kargs[0].offset + 40),
       areas->kargs[0].offset - 1, areas->kargs[0].offset + 40},
  };
  for (const Case& c : cases) {
    auto part = HttpRequest("GET", url, {"Range: " + c.range});
    ASSERT_THAT(part, IsOk());
    EXPECT_EQ(part->status, 206) << c.range;
    EXPECT_EQ(part->headers["content-range"],
              absl::StrCat("bytes ", c.first, "-", c.last, "/", size))
        << c.range;
    EXPECT_TRUE(part->body == full->body.substr(c.first, c.last - c.first + 1)) << c.range;
  }
  auto unsatisfiable = HttpRequest("GET", url, {absl::StrCat("Range: bytes=", size, "-")});
  ASSERT_THAT(unsatisfiable, IsOk());
  EXPECT_EQ(unsatisfiable->status, 416);
  EXPECT_EQ(unsatisfiable->headers["content-range"], absl::StrCat("bytes */", size));
  // If-Range with the current ETag gets the range; with another, the whole image.
  const std::string etag = full->headers["etag"];
  auto resumed = HttpRequest("GET", url, {"Range: bytes=0-9", "If-Range: " + etag});
  EXPECT_EQ(resumed->status, 206);
  auto stale = HttpRequest("GET", url, {"Range: bytes=0-9", "If-Range: \"something-else\""});
  EXPECT_EQ(stale->status, 200);
  auto head = HttpRequest("HEAD", url, {});
  ASSERT_THAT(head, IsOk());
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->headers["content-length"], absl::StrCat(size));
  EXPECT_TRUE(head->body.empty());
}

TEST_F(ImageTest, ForgedTokensAreRefusedAndPxeArtifactsAreServed) {
  const img::GetImageUrlResponse urls = Urls();
  std::string forged = urls.url();
  const size_t at = forged.find("/images/") + 8;
  forged[at] = forged[at] == 'A' ? 'B' : 'A';
  auto refused = HttpGet(forged);
  ASSERT_THAT(refused, IsOk());
  EXPECT_EQ(refused->status, 403);
  auto kernel = HttpGet(urls.kernel_url());
  ASSERT_THAT(kernel, IsOk());
  EXPECT_EQ(kernel->status, 200);
  EXPECT_EQ(kernel->body, "test kernel\n");
  auto initrd = HttpGet(urls.pxe_initrd_url());
  ASSERT_THAT(initrd, IsOk());
  EXPECT_EQ(initrd->status, 200);
  EXPECT_EQ(initrd->body.substr(0, iso::TestInitrd().size()), iso::TestInitrd());
  img::GetIpxeScriptRequest request;
  request.set_infra_env_id(infra_env_.id());
  img::GetIpxeScriptResponse script;
  grpc::ClientContext context;
  ASSERT_TRUE(image_stub_->GetIpxeScript(&context, request, &script).ok());
  EXPECT_THAT(script.script(), StartsWith("#!ipxe\n"));
  auto served = HttpGet(script.url());
  ASSERT_THAT(served, IsOk());
  EXPECT_EQ(served->status, 200);
  EXPECT_THAT(served->body, HasSubstr("coreos.live.rootfs_url="));
  auto ready = HttpGet(base_url_ + "/ready");
  EXPECT_EQ(ready->status, 200);
}

TEST_F(ImageTest, MirrorRegistriesStoredInTheInventoryReachTheDiscoveryIgnition) {
  auto inventory_stub = inv::InventoryService::NewStub(
      grpc::CreateChannel(inventory_->grpc_target(), grpc::InsecureChannelCredentials()));
  inv::CreateInfraEnvRequest create;
  create.mutable_infra_env()->set_name("mirrored");
  types::v1::RegistryMirror* mirror =
      create.mutable_infra_env()->mutable_mirror_registries()->add_mirrors();
  mirror->set_source("quay.io/openshift-release-dev/ocp-release");
  mirror->add_mirrors("mirror.lab:5000/ocp/release");
  mirror->set_mirror_by_digest_only(true);
  types::v1::InfraEnv mirrored;
  grpc::ClientContext create_context;
  ASSERT_TRUE(inventory_stub->CreateInfraEnv(&create_context, create, &mirrored).ok());
  img::GetDiscoveryIgnitionRequest request;
  request.set_infra_env_id(mirrored.id());
  img::GetDiscoveryIgnitionResponse response;
  grpc::ClientContext context;
  const grpc::Status status = image_stub_->GetDiscoveryIgnition(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_THAT(response.ignition_json(), HasSubstr("\"/etc/containers/registries.conf\""));
  const std::string path = dir_ + "/mirrored.ign";
  std::ofstream(path) << response.ignition_json();
  const auto validated = Run({"ignition-validate", path});
  EXPECT_EQ(validated.exit_code, 0) << validated.stdout_data << validated.stderr_data;
}

TEST_F(ImageTest, TheMinimalIsoFetchesItsRootfsFromASignedUrlItServes) {
  // A minimal-ISO infra-env behind a proxy: the initramfs needs the proxy for the rootfs fetch.
  auto inventory_stub = inv::InventoryService::NewStub(
      grpc::CreateChannel(inventory_->grpc_target(), grpc::InsecureChannelCredentials()));
  inv::CreateInfraEnvRequest create;
  create.mutable_infra_env()->set_name("minimal");
  create.mutable_infra_env()->set_type(types::v1::IMAGE_TYPE_MINIMAL_ISO);
  create.mutable_infra_env()->mutable_proxy()->set_http_proxy("http://proxy.example.com:3128");
  types::v1::KernelArgument* karg = create.mutable_infra_env()->add_kernel_arguments();
  karg->set_operation(types::v1::KERNEL_ARGUMENT_OPERATION_APPEND);
  karg->set_value("console=ttyS0,115200n8");
  types::v1::InfraEnv minimal;
  grpc::ClientContext create_context;
  const grpc::Status created = inventory_stub->CreateInfraEnv(&create_context, create, &minimal);
  ASSERT_TRUE(created.ok()) << created.error_message();
  img::GetImageUrlRequest request;
  request.set_infra_env_id(minimal.id());
  img::GetImageUrlResponse urls;
  grpc::ClientContext context;
  ASSERT_TRUE(image_stub_->GetImageUrl(&context, request, &urls).ok());
  EXPECT_THAT(urls.url(), StartsWith(base_url_ + "/images/"));
  EXPECT_THAT(urls.url(), ::testing::EndsWith("/minimal.iso"));
  auto download = HttpGet(urls.url(), absl::Seconds(30));
  ASSERT_THAT(download, IsOk());
  ASSERT_EQ(download->status, 200);
  EXPECT_THAT(download->headers["content-disposition"], HasSubstr("minimal.iso"));
  const std::string iso_path = dir_ + "/minimal.iso";
  std::ofstream(iso_path, std::ios::binary) << download->body;

  // xorriso lists it: no rootfs inside, a ramdisk area instead.
  const auto listed =
      Run({"xorriso", "-indev", iso_path, "-find", "/", "-type", "f", "-exec", "report_lba", "--"});
  EXPECT_EQ(listed.exit_code, 0) << listed.stderr_data;
  EXPECT_THAT(listed.stdout_data, Not(HasSubstr("rootfs.img")));
  EXPECT_THAT(listed.stdout_data, HasSubstr("'/images/assisted_installer_custom.img'"));
  EXPECT_THAT(listed.stdout_data, HasSubstr("'/images/ignition.img'"));

  // Both boot loader configs: the signed rootfs URL on the kernel line, no coreos.liveiso, and
  // the area still padded up to its marker (1024 bytes in the test image).
  const std::string out = dir_ + "/minimal-out";
  std::filesystem::create_directories(out);
  Run({"xorriso", "-osirrox", "on", "-indev", iso_path, "-extract", "/EFI/redhat/grub.cfg",
       out + "/grub.cfg", "-extract", "/isolinux/isolinux.cfg", out + "/isolinux.cfg", "-extract",
       "/images/assisted_installer_custom.img", out + "/ramdisk.img"});
  std::string rootfs_url;
  for (const auto& [config, prefix] :
       {std::make_pair("grub.cfg", "linux /images/pxeboot/vmlinuz "),
        std::make_pair("isolinux.cfg", "/images/assisted_installer_custom.img ")}) {
    const std::string text = ReadFile(out + "/" + config, "test file").value_or("");
    const size_t area = text.find(prefix);
    const size_t marker = text.find("# COREOS_KARG_EMBED_AREA");
    ASSERT_NE(area, std::string::npos) << config << ":\n" << text;
    ASSERT_NE(marker, std::string::npos) << config;
    const std::string kargs = text.substr(area + strlen(prefix), marker - area - strlen(prefix));
    EXPECT_EQ(kargs.size(), 1024u) << config;
    const size_t end = kargs.find('\n');
    ASSERT_NE(end, std::string::npos) << config;
    EXPECT_EQ(kargs.find_first_not_of('#', end + 1), std::string::npos) << config;
    const std::string line = kargs.substr(0, end);
    EXPECT_THAT(line, Not(HasSubstr("coreos.liveiso")));
    const std::string kKarg = "coreos.live.rootfs_url=";
    const size_t url = line.find(kKarg);
    ASSERT_NE(url, std::string::npos) << line;
    const size_t stop = std::min(line.find(' ', url), line.size());
    rootfs_url = line.substr(url + kKarg.size(), stop - url - kKarg.size());
    EXPECT_THAT(line, ::testing::EndsWith(" console=ttyS0,115200n8")) << config;
  }
  EXPECT_THAT(rootfs_url, StartsWith(base_url_ + "/rootfs/"));
  EXPECT_LT(rootfs_url.size(), 120u);

  // The URL serves the base image's rootfs; the same token opens nothing else.
  auto rootfs = HttpGet(rootfs_url, absl::Seconds(30));
  ASSERT_THAT(rootfs, IsOk());
  EXPECT_EQ(rootfs->status, 200);
  const int fd = open((dir_ + "/base.iso").c_str(), O_RDONLY | O_CLOEXEC);
  auto reader = iso::IsoReader::Open(fd, "base.iso");
  ASSERT_THAT(reader, IsOk());
  auto extent = reader->Find("images/pxeboot/rootfs.img");
  ASSERT_THAT(extent, IsOk());
  EXPECT_TRUE(rootfs->body == *reader->ReadAt(extent->offset, extent->size));
  close(fd);
  const std::string token = rootfs_url.substr(base_url_.size() + 8, 50);
  auto refused = HttpGet(absl::StrCat(base_url_, "/images/", token, "/discovery.iso"));
  ASSERT_THAT(refused, IsOk());
  EXPECT_EQ(refused->status, 403);

  // The ramdisk area holds the initramfs archive: the proxy for the rootfs fetch.
  auto cpio = iso::Gunzip(ReadFile(out + "/ramdisk.img", "test file").value_or(""));
  ASSERT_THAT(cpio, IsOk());
  std::ofstream(out + "/ramdisk.cpio", std::ios::binary) << *cpio;
  EXPECT_EQ(Run({"sh", "-c", "cpio -idm --quiet < ramdisk.cpio"}, out).exit_code, 0);
  EXPECT_THAT(
      ReadFile(out + "/etc/systemd/system/coreos-livepxe-rootfs.service.d/10-proxy.conf", "f")
          .value_or(""),
      HasSubstr("http_proxy=http://proxy.example.com:3128"));

  // PXE boots get the same: the archive after the Ignition one on the initrd, the kernel
  // arguments on the iPXE kernel line.
  auto initrd = HttpGet(urls.pxe_initrd_url(), absl::Seconds(30));
  ASSERT_THAT(initrd, IsOk());
  ASSERT_EQ(initrd->status, 200);
  const size_t last_gzip = initrd->body.rfind("\x1f\x8b\x08");
  ASSERT_NE(last_gzip, std::string::npos);
  auto appended = iso::Gunzip(initrd->body.substr(last_gzip));
  ASSERT_THAT(appended, IsOk());
  EXPECT_THAT(*appended, HasSubstr("coreos-livepxe-rootfs.service.d/10-proxy.conf"));
  img::GetIpxeScriptRequest ipxe_request;
  ipxe_request.set_infra_env_id(minimal.id());
  img::GetIpxeScriptResponse script;
  grpc::ClientContext ipxe_context;
  ASSERT_TRUE(image_stub_->GetIpxeScript(&ipxe_context, ipxe_request, &script).ok());
  EXPECT_THAT(script.script(), HasSubstr(" console=ttyS0,115200n8\n"));
}

}  // namespace
}  // namespace assisted::testing
