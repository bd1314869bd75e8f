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
    # A host's config points at its cluster's Machine Config Server
    # (https://api-int.<cluster>.<domain>:22623/config/<pool>), which OpenShift serves and this
    # OS image, no OpenShift node, never reaches: Ignition would retry it forever. Drop that
    # merge (and say so); the rest of the config applies. A real RHCOS fetches it.
    mcs='^https://api-int\.[^/]*:22623/config/'
    if jq -e --arg mcs "$mcs" '[.ignition.config.merge[]?.source // "" | select(test($mcs))] | length > 0' \
        "$user_ign" >/dev/null; then
        jq --arg mcs "$mcs" '.ignition.config.merge |= map(select((.source // "") | test($mcs) | not))' \
            "$user_ign" >"$user_ign.new"
        mv "$user_ign.new" "$user_ign"
        echo "assisted: no Machine Config Server for this OS image: its merge was dropped"
    fi
else
    echo "assisted: the boot partition holds no ignition/config.ign"
fi
if [ -d "$mnt/coreos-firstboot-network" ]; then
    mkdir -p /run/assisted-firstboot-network
    cp -a "$mnt/coreos-firstboot-network/." /run/assisted-firstboot-network/
fi
