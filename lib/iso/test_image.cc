#include "lib/iso/test_image.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "lib/iso/cpio.h"
#include "lib/status/status_macros.h"
#include "nlohmann/json.hpp"

namespace assisted::iso {
namespace {

absl::Status WriteFile(const std::filesystem::path& path, const std::string& content) {
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

// A boot loader config whose kernel line ends in a kargs area: "<prefix><area># COREOS_…".
// Returns the content and the area's offset in it.
std::pair<std::string, uint64_t> BootConfig(const std::string& before, const std::string& prefix,
                                            const std::string& after,
                                            const TestImageOptions& options) {
  std::string area = options.default_kargs + "\n";
  area.resize(options.kargs_area_bytes, '#');
  const std::string head = before + prefix;
  return {absl::StrCat(head, area, "# COREOS_KARG_EMBED_AREA\n", after), head.size()};
}

}  // namespace

std::string TestInitrd() {
  CpioWriter cpio;
  cpio.AddDirectory("etc");
  cpio.AddFile("etc/os-release", "NAME=\"Test CoreOS\"\n", 0644);
  cpio.AddFile("init", "#!/bin/sh\necho test initrd\n", 0755);
  return Gzip(cpio.Finish()).value_or("");
}

absl::Status BuildTestImage(process::ProcessRunner& runner, const TestImageOptions& options,
                            const std::string& work_dir, const std::string& output) {
  const std::filesystem::path tree = std::filesystem::path(work_dir) / "tree";
  std::error_code error;
  std::filesystem::remove_all(tree, error);
  if (options.default_kargs.size() + 1 > options.kargs_area_bytes) {
    return absl::InvalidArgumentError("default kargs do not fit the kargs area");
  }
  const auto [grub, grub_offset] =
      BootConfig("set timeout=5\nmenuentry 'Test CoreOS (Live)' --class gnu-linux --class os {\n",
                 "\tlinux /images/pxeboot/vmlinuz ",
                 "\tinitrd /images/pxeboot/initrd.img /images/ignition.img\n}\n", options);
  const auto [isolinux, isolinux_offset] =
      BootConfig("default vesamenu.c32\nlabel linux\n  kernel /images/pxeboot/vmlinuz\n",
                 "  append initrd=/images/pxeboot/initrd.img,/images/ignition.img ", "", options);
  const nlohmann::json kargs = {
      {"default", options.default_kargs},
      {"files",
       {{{"path", "EFI/redhat/grub.cfg"}, {"offset", grub_offset}},
        {{"path", "isolinux/isolinux.cfg"}, {"offset", isolinux_offset}}}},
      {"size", options.kargs_area_bytes}};
  RETURN_IF_ERROR(WriteFile(tree / "EFI/redhat/grub.cfg", grub));
  RETURN_IF_ERROR(WriteFile(tree / "isolinux/isolinux.cfg", isolinux));
  RETURN_IF_ERROR(WriteFile(tree / "coreos/kargs.json", kargs.dump()));
  RETURN_IF_ERROR(WriteFile(tree / "coreos/igninfo.json", R"({"file": "images/ignition.img"})"));
  RETURN_IF_ERROR(
      WriteFile(tree / "images/ignition.img", std::string(options.ignition_area_bytes, '\0')));
  RETURN_IF_ERROR(WriteFile(tree / "images/pxeboot/vmlinuz", "test kernel\n"));
  RETURN_IF_ERROR(WriteFile(tree / "images/pxeboot/initrd.img", TestInitrd()));
  {
    // A sparse rootfs: large test images cost no disk.
    const std::filesystem::path rootfs = tree / "images/pxeboot/rootfs.img";
    RETURN_IF_ERROR(WriteFile(rootfs, ""));
    std::filesystem::resize_file(rootfs, options.rootfs_bytes, error);
    if (error) return absl::InternalError(absl::StrCat("cannot size ", rootfs.string()));
  }
  std::vector<std::string> argv = {"xorriso", "-as", "mkisofs"};
  if (options.rock_ridge) {
    argv.push_back("-R");
    argv.push_back("-J");
  }
  for (const std::string& arg :
       {std::string("-V"), options.volume_id, std::string("-o"), output, tree.string()}) {
    argv.push_back(arg);
  }
  ASSIGN_OR_RETURN(process::CommandResult result,
                   runner.Run({.argv = argv, .timeout = absl::Minutes(10)}));
  if (!result.ok()) {
    return absl::InternalError(absl::StrCat("xorriso failed: ", result.stderr_data));
  }
  return absl::OkStatus();
}

}  // namespace assisted::iso
