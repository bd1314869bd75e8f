#!/bin/bash
# Puts the user config where Debian's Ignition reads it (/usr/lib/ignition/user.ign).
set -euo pipefail
user_ign=/usr/lib/ignition/user.ign
mkdir -p /usr/lib/ignition
if is-live-image; then
    # The embed area's archive lands at the initramfs root; an empty area is an unconfigured ISO.
    if [ -f /config.ign ]; then
        cp /config.ign "$user_ign"
        echo "assisted: Ignition config from the ISO embed area"
    else
        echo "assisted: the ISO embed area holds no config.ign"
    fi
    exit 0
fi
boot=/dev/disk/by-label/boot
udevadm wait --timeout=120 "$boot"
mnt=/run/assisted-boot
mkdir -p "$mnt"
mount -o ro "$boot" "$mnt"
trap 'umount "$mnt"' EXIT
if [ -f "$mnt/ignition/config.ign" ]; then
    cp "$mnt/ignition/config.ign" "$user_ign"
    echo "assisted: Ignition config from the boot partition"
else
    echo "assisted: the boot partition holds no ignition/config.ign"
fi
if [ -d "$mnt/coreos-firstboot-network" ]; then
    mkdir -p /run/assisted-firstboot-network
    cp -a "$mnt/coreos-firstboot-network/." /run/assisted-firstboot-network/
fi
