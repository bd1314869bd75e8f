#!/bin/sh
# Ignition's generator asks this whether the system runs from a live image (no root disk to set
# up): true when booted with root=live:… (dracut's dmsquash-live).
grep -q 'root=live:' /proc/cmdline
