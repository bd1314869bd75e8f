#!/bin/bash
# Runs (in a private mount namespace) with the unpacked root as $1: adds our files, the agent and
# the post-reboot reporter, enables the units, then makes the one dracut initramfs both artifacts
# boot with (dmsquash-live for the ISO, root=LABEL=root for the disk) at
# /boot/initrd.assisted.img.
set -euo pipefail
root=$1 os_dir=$2 agent=$3 reporter=$4
mount --make-rprivate /
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --rbind /dev "$root/dev"
cp -a "$os_dir/rootfs/." "$root/"
cp -a "$os_dir/dracut/50assisted" "$root/usr/lib/dracut/modules.d/"
install -m 0755 "$agent" "$root/usr/local/bin/assisted-agent"
install -m 0755 "$reporter" "$root/usr/local/bin/assisted-reporter"
# The system roots as built: assisted-update-ca-trust.service adds the infra-env's anchors to them.
install -D -m 0644 "$root/etc/ssl/certs/ca-certificates.crt" \
  "$root/usr/share/assisted/system-ca-certificates.crt"
chroot "$root" systemctl enable assisted-firstboot-complete.service assisted-reporter.service \
  assisted-update-ca-trust.service \
  NetworkManager.service chrony.service
# Maintenance a discovery or freshly installed host has no use for, which only lengthens a boot
# (e2scrub_reap scans for LVM snapshots; the timers start work minutes in). The first boot
# applies the presets, so usr/lib/systemd/system-preset/10-assisted.preset disables them too.
chroot "$root" systemctl disable e2scrub_reap.service e2scrub_all.timer fstrim.timer \
  dpkg-db-backup.timer apt-daily.timer apt-daily-upgrade.timer
kver=$(ls "$root/lib/modules")
# gzip -1: the initramfs is read once per boot; -9 (the default) costs minutes on a loaded builder.
chroot "$root" dracut --force --no-hostonly --compress "gzip -n -1" --add assisted \
  --omit "plymouth resume" \
  --add-drivers "virtio_blk virtio_net virtio_pci virtio_scsi sr_mod isofs squashfs overlay ext4 vfat" \
  --kver "$kver" /boot/initrd.assisted.img
