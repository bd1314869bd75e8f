#!/usr/bin/env bash
# os/build.sh — builds the two OS artifacts real (virtual) machines run, from Debian packages only:
#
#   live.iso  a live ISO laid out like a CoreOS live ISO: grub for BIOS and UEFI, kernel and a
#             dracut initramfs in images/pxeboot/, the Ignition embed area images/ignition.img
#             (coreos/igninfo.json) loaded as a second initrd, kernel-argument areas in
#             boot/grub/grub.cfg (coreos/kargs.json), the squashfs root in
#             images/pxeboot/rootfs.img (where the image service looks for the rootfs; dracut's
#             dmsquash-live mounts it from the CD, rd.live.dir/rd.live.squashimg).
#             The image service serves it unchanged as a base image.
#   disk.raw  the OS disk image the install step writes: GPT with BIOS-BOOT (reserved), EFI-SYSTEM
#             (grub for UEFI), boot (ext4: kernel, initramfs, grub.cfg, kargs.cfg,
#             ignition.firstboot, ignition/) and root (ext4), as on RHCOS.
#   agent-live.iso
#             the base of the agent-based installer's ISO (`aictl agent create image`): live.iso
#             whose root also holds what node 0 runs (docs/agent-based.md "Node 0"): Debian's
#             PostgreSQL 15 server (/usr/lib/postgresql/15, without the LLVM JIT; no
#             postgresql-common, no cluster, no unit: the agent Ignition brings its own), the
#             service binaries and aictl in /usr/local/bin, and in /usr/share/assisted/ the
#             OS image (os-image.raw, this build's disk.raw), the base ISO its image service
#             serves (live.iso, this build's) and node-zero-images.env naming both.
# All carry the agent (/usr/local/bin/assisted-agent, started by the discovery Ignition) and the
# post-reboot reporter (/usr/local/bin/assisted-reporter, assisted-reporter.service: runs on an
# installed disk while the install step's assisted/reporter.json is on its boot partition). The
# shared root file system carries the shared libraries of every binary above, node 0's included
# (one Debian package set: installing them in the live root only would mean a second mmdebstrap).
#
# Usage: os/build.sh OUTPUT_ROOT AGENT_BINARY REPORTER_BINARY NODE_ZERO_BINARY...
#        os/build.sh --base OUTPUT_ROOT
# --base builds only the Debian part (mmdebstrap of os/packages.txt, the slow, downloading step,
# cached as OUTPUT_ROOT/base-<hash>/) and needs no binary: ./dev test starts it while Bazel
# builds them.
# NODE_ZERO_BINARY: assisted-inventory, -orchestrator, -image, -gateway and aictl, each installed
# under its own file name. Needs this machine's postgresql-15 package (its files are copied).
# Writes OUTPUT_ROOT/<inputs hash>/{live.iso,disk.raw,agent-live.iso,manifest.json} and points
# OUTPUT_ROOT/current at it; does nothing when that hash is already built. The hash covers the
# package list, every file under os/, every binary and the PostgreSQL package's version. Needs
# root (mmdebstrap, chroot).
set -euo pipefail

OS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
USAGE="usage: os/build.sh OUTPUT_ROOT AGENT_BINARY REPORTER_BINARY NODE_ZERO_BINARY... | os/build.sh --base OUTPUT_ROOT"
BASE_ONLY=false
if [ "${1:-}" = --base ]; then
  BASE_ONLY=true
  shift
fi
OUT_ROOT=${1:?$USAGE}
if ! $BASE_ONLY; then
  AGENT=${2:?$USAGE}
  REPORTER=${3:?$USAGE}
  shift 3
  NODE_ZERO_BINARIES=("$@")
fi
# What node 0's units (services/gateway/cli/agent/agent_ignition.cc) start from /usr/local/bin.
NODE_ZERO_NAMES="aictl assisted-gateway assisted-image assisted-inventory assisted-orchestrator"
PG_PACKAGE=postgresql-15
PG_DIR=/usr/lib/postgresql/15
# Node 0's image service registers its base ISO under this version (agent_ignition.h:
# kOpenshiftVersion, the version node 0 creates the cluster with).
NODE_ZERO_OPENSHIFT_VERSION=4.16

LIVE_LABEL=ASSISTED-LIVE
IGNITION_AREA_BYTES=$((256 * 1024))
KARGS_AREA_BYTES=1024
LIVE_KARGS="coreos.liveiso=$LIVE_LABEL root=live:CDLABEL=$LIVE_LABEL rd.live.image rd.live.dir=/images/pxeboot rd.live.squashimg=rootfs.img rd.live.overlay.overlayfs=1 console=ttyS0,115200n8 ignition.firstboot ignition.platform.id=metal"
DISK_KARGS="root=LABEL=root rw console=ttyS0,115200n8 ignition.platform.id=metal"

say() { printf 'os-images: %s\n' "$*" >&2; }
die() { printf 'os-images: error: %s\n' "$*" >&2; exit 1; }
step_started=$SECONDS
step() { say "[$((SECONDS - step_started)) s] $*"; }

[ "$(id -u)" -eq 0 ] || die "needs root (mmdebstrap builds the root file system in a chroot)"

packages() { grep -v '^[[:space:]]*\(#\|$\)' "$OS_DIR/packages.txt"; }

# --- the Debian part ---------------------------------------------------------------------------
# Cached on its own, keyed by everything mmdebstrap is given (the packages and the hooks): a new
# agent or hook only re-runs what follows.
# The kernel package's install runs dracut (its kernel-install hook and its update-initramfs
# trigger) to build an initramfs nobody boots: minutes on a loaded builder. Both give up when
# /usr/bin/dracut is missing, so it is diverted aside while the packages install and put back
# after; hooks/customize.sh builds the one initramfs we boot.
# shellcheck disable=SC2016  # "$1" is the hooks' own argument (the new root)
MMDEBSTRAP_ARGS=(
  --variant=minbase --format=directory --include="$(packages | sort -u | paste -sd, -)"
  --essential-hook='chroot "$1" dpkg-divert --quiet --local --rename --divert /usr/bin/dracut.assisted-deferred --add /usr/bin/dracut'
  --customize-hook='chroot "$1" dpkg-divert --quiet --local --rename --remove /usr/bin/dracut'
  bookworm
)
BASE="$OUT_ROOT/base-$(printf '%s\n' "${MMDEBSTRAP_ARGS[@]}" | sha256sum | cut -c1-16)"
build_base() {
  [ -d "$BASE" ] && return 0
  mkdir -p "$OUT_ROOT"
  local log="$BASE.log"
  # A build killed inside mmdebstrap can leave /proc, /sys or /dev mounted in its root.
  grep -o " $BASE.tmp/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  rm -rf --one-file-system "$BASE.tmp"
  step "root file system: mmdebstrap (bookworm, $(packages | sort -u | wc -l) packages through apt)"
  mmdebstrap "${MMDEBSTRAP_ARGS[@]}" "$BASE.tmp" >"$log" 2>&1 ||
    { tail -n 40 "$log" >&2; rm -rf --one-file-system "$BASE.tmp"; die "mmdebstrap failed"; }
  mv "$BASE.tmp" "$BASE"
  rm -f "$log"
}
if $BASE_ONLY; then
  build_base
  say "Debian part in $BASE"
  exit 0
fi

[ -x "$AGENT" ] || die "no agent binary at $AGENT"
[ -x "$REPORTER" ] || die "no reporter binary at $REPORTER"
[ "$(for binary in "${NODE_ZERO_BINARIES[@]}"; do basename "$binary"; done | sort | paste -sd' ')" = \
  "$NODE_ZERO_NAMES" ] || die "node 0's binaries must be exactly: $NODE_ZERO_NAMES"
for binary in "${NODE_ZERO_BINARIES[@]}"; do [ -x "$binary" ] || die "no binary at $binary"; done
PG_VERSION=$(dpkg-query -W -f '${Status} ${Version}' "$PG_PACKAGE" 2>/dev/null |
  sed -n 's/^install ok installed //p')
[ -n "$PG_VERSION" ] || die "node 0's PostgreSQL comes from this machine's $PG_PACKAGE: apt-get install $PG_PACKAGE"

# Node 0's PostgreSQL: the server's own files of the Debian package (programs initdb and postgres,
# its modules, its share/ folder), without the LLVM JIT (libLLVM is 100 MB; the JIT is off when
# its module is absent) and without postgresql-common's cluster management (perl).
postgres_files() {
  dpkg -L "$PG_PACKAGE" | grep -E "^($PG_DIR/bin/(postgres|initdb)|$PG_DIR/lib/[^/]+\.so|/usr/share/postgresql/15/.+)\$" |
    grep -v '/llvmjit' | while read -r path; do [ -f "$path" ] && echo "$path"; done
}

# Every shared library a binary here loads (the path ldd resolves its soname to), and the binary.
binaries_libraries() {
  local binary lib
  # shellcheck disable=SC2046  # one path per word
  for binary in "$AGENT" "$REPORTER" "${NODE_ZERO_BINARIES[@]}" $(postgres_files | grep '/bin/\|\.so$'); do
    ldd "$binary" | awk '/=> \// { print $3 }' | while read -r lib; do
      echo "$lib $binary"
    done
  done | sort -u -k1,1
}

inputs_hash() {
  {
    packages | sort -u
    (cd "$OS_DIR" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
    sha256sum <"$AGENT"
    sha256sum <"$REPORTER"
    for binary in "${NODE_ZERO_BINARIES[@]}"; do sha256sum <"$binary"; done
    echo "$PG_PACKAGE $PG_VERSION"
  } | sha256sum | cut -c1-16
}

HASH=$(inputs_hash)
OUT="$OUT_ROOT/$HASH"
if [ -f "$OUT/manifest.json" ]; then
  ln -sfn "$HASH" "$OUT_ROOT/current"
  say "up to date ($OUT)"
  exit 0
fi

WORK="$OUT_ROOT/work-$HASH"
# A build killed inside mmdebstrap can leave /proc, /sys or /dev mounted in its root: unmount
# before removing, and never cross into another file system.
remove_work() {
  grep -o " $WORK/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  rm -rf --one-file-system "$WORK"
}
remove_work
mkdir -p "$WORK" "$OUT_ROOT"
trap remove_work EXIT

# --- root file system ------------------------------------------------------------------------
build_base
# The binaries run in this root: each library they load must be in the Debian part (a new
# dependency needs its package in os/packages.txt; the error names it).
while read -r lib binary; do
  [ -e "$BASE$lib" ] ||
    die "the root file system lacks $lib, which $(basename "$binary") loads: add its package ($(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | cut -d: -f1 | head -n 1)) to os/packages.txt"
done < <(binaries_libraries)
step "root file system: copying $(du -sh "$BASE" | cut -f1) and adding our part"
ROOT="$WORK/root"
cp -a "$BASE" "$ROOT"
# hooks/customize.sh runs in a private mount namespace: the /proc, /sys and /dev it mounts in
# the new root vanish with it, whatever happens.
unshare --mount --fork "$OS_DIR/hooks/customize.sh" "$ROOT" "$OS_DIR" "$AGENT" "$REPORTER" \
  >"$WORK/customize.log" 2>&1 ||
  { grep -v "will not be installed\|could not be found" "$WORK/customize.log" | tail -n 40 >&2;
    die "customizing the root file system failed"; }

KERNEL=$(ls "$ROOT"/boot/vmlinuz-* | head -n 1)
INITRD="$ROOT/boot/initrd.assisted.img"
[ -s "$INITRD" ] || die "dracut made no initramfs"
step "root file system: $(du -sh "$ROOT" | cut -f1); initramfs $(du -h "$INITRD" | cut -f1)"

# What neither artifact needs: documentation, apt state, drivers for hardware a VM or a server
# installer does not have.
rm -rf "$ROOT"/usr/share/{doc,man,info,locale} "$ROOT"/var/cache/apt/* "$ROOT"/var/lib/apt/lists/*
for dir in sound drivers/gpu drivers/media drivers/net/wireless drivers/infiniband \
  drivers/staging drivers/bluetooth drivers/iio drivers/input/touchscreen net/wireless \
  net/bluetooth drivers/isdn drivers/hid; do
  rm -rf "$ROOT"/lib/modules/*/kernel/$dir
done
chroot "$ROOT" depmod "$(ls "$ROOT/lib/modules")"
# "uninitialized": systemd treats the next boot as the first one (ConditionFirstBoot) and
# applies the unit presets Ignition writes; that is how the discovery Ignition's
# assisted-agent.service gets enabled. (An empty file means "not first boot".)
echo uninitialized >"$ROOT/etc/machine-id"
# Node 0's PostgreSQL (agent-live.iso) runs as postgres; the OS it installs needs the same uid for
# the data node 0 carries over to it (agent_ignition.cc: assisted-node-zero-carry-over.sh).
chroot "$ROOT" useradd --system --user-group --home-dir /var/lib/postgresql --no-create-home \
  --shell /usr/sbin/nologin postgres
rm -f "$ROOT/etc/hostname"
step "root file system pruned: $(du -sh "$ROOT" | cut -f1)"

# Boot files live outside the root in both artifacts.
BOOTFILES="$WORK/bootfiles"
mkdir -p "$BOOTFILES"
cp "$KERNEL" "$BOOTFILES/vmlinuz"
cp "$INITRD" "$BOOTFILES/initrd.img"
rm -rf "$ROOT"/boot/*

# --- live ISO --------------------------------------------------------------------------------
# A boot loader config whose linux line ends in a kargs area, as on a CoreOS live ISO:
# "<linux line> <kargs>\n####…# COREOS_KARG_EMBED_AREA\n". Prints the area's offset.
write_live_grub_cfg() {
  local file=$1 head area
  head=$'set timeout=1\nserial --unit=0 --speed=115200\nterminal_input serial console\nterminal_output serial console\nmenuentry "Assisted discovery (live)" {\n\tlinux /images/pxeboot/vmlinuz '
  area="$LIVE_KARGS"$'\n'
  while [ ${#area} -lt $KARGS_AREA_BYTES ]; do area+="#"; done
  area=${area:0:$KARGS_AREA_BYTES}
  printf '%s%s# COREOS_KARG_EMBED_AREA\n\tinitrd /images/pxeboot/initrd.img /images/ignition.img\n}\n' \
    "$head" "$area" >"$file"
  printf '%s' "$head" | wc -c
}

# The ISO from `tree`: plain El Torito boot records, BIOS (grub i386-pc-eltorito) and UEFI
# (images/efiboot.img, a FAT image holding grub's BOOTX64.EFI), no hybrid MBR/GPT: the image
# service re-masters the ISO (the minimal ISO) by replaying its boot records with xorriso, which
# refuses grub-mkrescue's overlapping hybrid partitions.
make_live_iso() {
  local tree=$1 output=$2
  local modules="iso9660 part_gpt part_msdos fat ext2 search search_fs_file normal linux configfile test serial echo gzio"
  cat >"$WORK/iso-early.cfg" <<'EOF'
search --no-floppy --file /coreos/igninfo.json --set=root
set prefix=($root)/boot/grub
configfile ($root)/boot/grub/grub.cfg
EOF
  # shellcheck disable=SC2086  # one module per word
  grub-mkimage -O i386-pc-eltorito -p /boot/grub -c "$WORK/iso-early.cfg" \
    -o "$tree/boot/grub/eltorito.img" biosdisk $modules
  # shellcheck disable=SC2086
  grub-mkimage -O x86_64-efi -p /boot/grub -c "$WORK/iso-early.cfg" -o "$WORK/ISO-BOOTX64.EFI" \
    $modules
  rm -f "$tree/images/efiboot.img"
  mkfs.fat -C -n EFIBOOT "$tree/images/efiboot.img" 4096 >/dev/null
  mmd -i "$tree/images/efiboot.img" ::/EFI ::/EFI/BOOT
  mcopy -i "$tree/images/efiboot.img" "$WORK/ISO-BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI
  xorriso -as mkisofs -R -J -V "$LIVE_LABEL" \
    -b boot/grub/eltorito.img -no-emul-boot -boot-load-size 4 -boot-info-table \
    -eltorito-alt-boot -e images/efiboot.img -no-emul-boot \
    -o "$output" "$tree" >"$WORK/xorriso.log" 2>&1 ||
    { cat "$WORK/xorriso.log" >&2; die "xorriso failed"; }
}

step "live ISO: squashfs"
TREE="$WORK/iso"
mkdir -p "$TREE"/{images/pxeboot,coreos,boot/grub}
# zstd level 3: seconds where the default (15) takes minutes on 2 cores, for a slightly larger ISO.
mksquashfs "$ROOT" "$TREE/images/pxeboot/rootfs.img" -comp zstd -Xcompression-level 3 -noappend \
  -quiet >/dev/null
cp "$BOOTFILES/vmlinuz" "$BOOTFILES/initrd.img" "$TREE/images/pxeboot/"
head -c "$IGNITION_AREA_BYTES" /dev/zero >"$TREE/images/ignition.img"
printf '{"file": "images/ignition.img"}\n' >"$TREE/coreos/igninfo.json"
offset=$(write_live_grub_cfg "$TREE/boot/grub/grub.cfg")
printf '{"default": "%s", "files": [{"path": "boot/grub/grub.cfg", "offset": %d}], "size": %d}\n' \
  "$LIVE_KARGS" "$offset" "$KARGS_AREA_BYTES" >"$TREE/coreos/kargs.json"
step "live ISO: grub El Torito images (BIOS + UEFI) and xorriso"
make_live_iso "$TREE" "$WORK/live.iso"

# --- OS disk image ---------------------------------------------------------------------------
step "disk image: partitions"
MiB=$((1024 * 1024))
BOOTDIR="$WORK/boot"
mkdir -p "$BOOTDIR/ignition"
cp "$BOOTFILES/vmlinuz" "$BOOTFILES/initrd.img" "$BOOTDIR/"
: >"$BOOTDIR/ignition.firstboot"
printf 'set kargs="%s"\n' "$DISK_KARGS" >"$BOOTDIR/kargs.cfg"
cat >"$BOOTDIR/grub.cfg" <<'EOF'
# Boot partition grub.cfg. kargs.cfg holds the kernel arguments (the install step edits it for
# --append-karg/--delete-karg); the ignition.firstboot stamp makes the initramfs run Ignition.
set timeout=1
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
source /kargs.cfg
set ignition_firstboot=""
if [ -f /ignition.firstboot ]; then set ignition_firstboot="ignition.firstboot"; fi
menuentry "Assisted OS" {
	linux /vmlinuz $kargs $ignition_firstboot
	initrd /initrd.img
}
EOF
boot_mib=$(($(du -sm "$BOOTDIR" | cut -f1) + 32))
mkfs.ext4 -q -F -L boot -d "$BOOTDIR" "$WORK/boot.img" "${boot_mib}M"

cat >"$ROOT/etc/fstab" <<'EOF'
LABEL=root / ext4 defaults 0 1
LABEL=boot /boot ext4 defaults 0 2
EOF
root_mib=$(($(du -sm "$ROOT" | cut -f1) * 5 / 4 + 128))
mkfs.ext4 -q -F -L root -d "$ROOT" "$WORK/root.img" "${root_mib}M"

cat >"$WORK/early.cfg" <<'EOF'
search --no-floppy --label boot --set=root
set prefix=($root)
configfile ($root)/grub.cfg
EOF
grub-mkstandalone -O x86_64-efi -o "$WORK/BOOTX64.EFI" \
  --modules="part_gpt ext2 fat search search_label normal linux configfile test serial echo" \
  "boot/grub/grub.cfg=$WORK/early.cfg"
esp_mib=16
mkfs.fat -C -n EFI-SYSTEM "$WORK/esp.img" $((esp_mib * 1024)) >/dev/null
mmd -i "$WORK/esp.img" ::/EFI ::/EFI/BOOT
mcopy -i "$WORK/esp.img" "$WORK/BOOTX64.EFI" ::/EFI/BOOT/BOOTX64.EFI

step "disk image: GPT"
DISK="$WORK/disk.raw"
p1=1 p2=$((1 + 1)) p3=$((2 + esp_mib)) p4=$((2 + esp_mib + boot_mib))
total=$((p4 + root_mib + 1))
truncate -s "${total}M" "$DISK"
sfdisk -q --label gpt "$DISK" <<EOF
start=${p1}MiB, size=1MiB, type=21686148-6449-6E6F-744E-656564454649, name=BIOS-BOOT
start=${p2}MiB, size=${esp_mib}MiB, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=EFI-SYSTEM
start=${p3}MiB, size=${boot_mib}MiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=boot
start=${p4}MiB, size=${root_mib}MiB, type=0FC63DAF-8483-4772-8E79-3D69D8477DE4, name=root
EOF
dd if="$WORK/esp.img" of="$DISK" bs=1M seek="$p2" conv=notrunc,sparse status=none
dd if="$WORK/boot.img" of="$DISK" bs=1M seek="$p3" conv=notrunc,sparse status=none
dd if="$WORK/root.img" of="$DISK" bs=1M seek="$p4" conv=notrunc,sparse status=none

# --- agent live ISO: live.iso plus node 0 -----------------------------------------------------
# The same root (without the disk image's fstab: a live system has no boot partition), kernel,
# initramfs and embed areas; its squashfs adds what node 0 runs. One live.iso for both would make
# every discovery ISO carry the OS image and a second ISO (several times the size) for the one
# host per cluster that needs them.
step "agent live ISO: node 0's PostgreSQL, services, OS image and base ISO"
live_sha=$(sha256sum "$WORK/live.iso" | cut -d' ' -f1)
disk_sha=$(sha256sum "$WORK/disk.raw" | cut -d' ' -f1)
rm -f "$ROOT/etc/fstab"
postgres_files | sed "s|^/||" | tar -C / -cf - --files-from=- | tar -C "$ROOT" -xf -
for binary in "${NODE_ZERO_BINARIES[@]}"; do
  install -m 0755 "$binary" "$ROOT/usr/local/bin/$(basename "$binary")"
done
SHARE="$ROOT/usr/share/assisted"
cp "$WORK/disk.raw" "$SHARE/os-image.raw"
cp "$WORK/live.iso" "$SHARE/live.iso"
# systemd EnvironmentFile syntax; the services read ASSISTED_<FLAG> (lib/config/config.h).
cat >"$SHARE/node-zero-images.env" <<ENV
ASSISTED_OS_IMAGE_URL=file:///usr/share/assisted/os-image.raw
ASSISTED_OS_IMAGE_SHA256=$disk_sha
ASSISTED_OS_IMAGES='[{"openshift_version":"$NODE_ZERO_OPENSHIFT_VERSION","cpu_architecture":"x86_64","url":"file:///usr/share/assisted/live.iso","version":"$HASH","sha256":"$live_sha"}]'
ASSISTED_DEFAULT_OPENSHIFT_VERSION=$NODE_ZERO_OPENSHIFT_VERSION
ENV
mksquashfs "$ROOT" "$TREE/images/pxeboot/rootfs.img" -comp zstd -Xcompression-level 3 -noappend \
  -quiet >/dev/null
make_live_iso "$TREE" "$WORK/agent-live.iso"

# --- publish ---------------------------------------------------------------------------------
step "checksums"
mkdir -p "$OUT"
mv "$WORK/live.iso" "$WORK/disk.raw" "$WORK/agent-live.iso" "$OUT/"
agent_sha=$(sha256sum "$OUT/agent-live.iso" | cut -d' ' -f1)
printf '{"live_iso": "live.iso", "live_iso_sha256": "%s", "live_iso_bytes": %d, "disk_image": "disk.raw", "disk_image_sha256": "%s", "disk_image_bytes": %d, "agent_live_iso": "agent-live.iso", "agent_live_iso_sha256": "%s", "agent_live_iso_bytes": %d, "live_kargs": "%s", "disk_kargs": "%s", "build_seconds": %d}\n' \
  "$live_sha" "$(stat -c %s "$OUT/live.iso")" "$disk_sha" "$(stat -c %s "$OUT/disk.raw")" \
  "$agent_sha" "$(stat -c %s "$OUT/agent-live.iso")" \
  "$LIVE_KARGS" "$DISK_KARGS" "$((SECONDS - step_started))" >"$OUT/manifest.json.tmp"
mv "$OUT/manifest.json.tmp" "$OUT/manifest.json"
ln -sfn "$HASH" "$OUT_ROOT/current"
step "done: live.iso $(du -h --apparent-size "$OUT/live.iso" | cut -f1), disk.raw $(du -h --apparent-size "$OUT/disk.raw" | cut -f1), agent-live.iso $(du -h --apparent-size "$OUT/agent-live.iso" | cut -f1) in $OUT"
