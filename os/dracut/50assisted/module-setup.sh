#!/bin/bash
# dracut module "assisted": hands Debian's Ignition (module 30ignition) the user config the way
# CoreOS's initramfs does (coreos-ignition-setup-user), for both artifacts of ./dev os-images:
#   live ISO: /config.ign, unpacked by the kernel from images/ignition.img (the ISO's embed area,
#             loaded as a second initrd);
#   OS disk:  ignition/config.ign on the partition labelled "boot" (written by the install step),
#             plus NetworkManager keyfiles in coreos-firstboot-network/ (--copy-network). This OS
#             is no OpenShift node: a merge from the Machine Config Server is dropped (see
#             assisted-ignition-setup.sh).
# Both run only on first boot (ignition.firstboot on the kernel command line).

check() { return 0; }

depends() { echo ignition dmsquash-live; }

install() {
    inst_script "$moddir/is-live-image.sh" /usr/bin/is-live-image
    inst_script "$moddir/assisted-ignition-setup.sh" /usr/sbin/assisted-ignition-setup
    inst_script "$moddir/setfiles-noop.sh" /usr/sbin/setfiles
    inst_multiple cp mkdir mount umount udevadm grep jq mv
    inst_simple "$moddir/assisted-live-overlay.service" \
        "$systemdsystemunitdir/assisted-live-overlay.service"
    inst_simple "$moddir/sysroot-live.conf" "$systemdsystemunitdir/sysroot.mount.d/assisted-live.conf"
    local unit
    for unit in assisted-ignition-setup.service assisted-firstboot-network.service; do
        inst_simple "$moddir/$unit" "$systemdsystemunitdir/$unit"
        mkdir -p "$initdir/$systemdsystemunitdir/ignition-complete.target.requires"
        ln_r "$systemdsystemunitdir/$unit" \
            "$systemdsystemunitdir/ignition-complete.target.requires/$unit"
    done
}
