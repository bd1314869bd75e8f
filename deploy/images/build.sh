#!/usr/bin/env bash
# deploy/images/build.sh — the container images of assisted, built offline from Debian packages:
#
#   assisted-inventory, assisted-orchestrator, assisted-image, assisted-gateway (with aictl and,
#   once ui/ builds, the web UI files), assisted-agent
#
# Each image is ONE layer: a root file system made by mmdebstrap (--variant=extract: packages
# unpacked, no maintainer scripts, no shell unless a package brings one) holding only the
# Debian packages its binaries' shared libraries come from (their NEEDED entries, resolved with
# ldd and dpkg -S) plus the few listed in packages.txt, then the binaries, a non-root user
# (65532) and the CA bundle. buildah turns it into an OCI image with the OCI labels (version,
# revision, source) and writes it as an oci-archive. No registry is contacted.
#
# Usage: deploy/images/build.sh OUTPUT_ROOT BAZEL_BIN VERSION REVISION
# Writes OUTPUT_ROOT/store/<image>-<inputs hash>.tar (removing that image's older archives) and
# points OUTPUT_ROOT/current/<image>.tar at it; an image whose inputs (package list, this
# directory, binaries, version, revision, UI files) did not change is not rebuilt. Prints one line per image: name, size, path.
# Needs root (mmdebstrap and buildah's storage).
#
# Hook for the web UI: ASSISTED_UI_DIR names a directory of built UI files (ui/'s output); they
# are copied to /usr/share/assisted/ui in the gateway image (gateway_ui_files below). Without
# it the gateway image has no UI files.
set -euo pipefail

IMAGES_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_ROOT=${1:?usage: deploy/images/build.sh OUTPUT_ROOT BAZEL_BIN VERSION REVISION}
BIN=${2:?usage: deploy/images/build.sh OUTPUT_ROOT BAZEL_BIN VERSION REVISION}
VERSION=${3:?usage: deploy/images/build.sh OUTPUT_ROOT BAZEL_BIN VERSION REVISION}
REVISION=${4:?usage: deploy/images/build.sh OUTPUT_ROOT BAZEL_BIN VERSION REVISION}
SOURCE_URL=${ASSISTED_SOURCE_URL:-https://github.com/assisted/assisted}
UI_DIR=${ASSISTED_UI_DIR:-}
NONROOT=65532

say() { printf 'images: %s\n' "$*" >&2; }
die() { printf 'images: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (mmdebstrap, buildah storage)"

# image -> its binaries under BAZEL_BIN; the first is the entrypoint.
declare -A BINARIES=(
  [inventory]="services/inventory/assisted-inventory"
  [orchestrator]="services/orchestrator/assisted-orchestrator"
  [image]="services/image/assisted-image"
  [gateway]="services/gateway/assisted-gateway services/gateway/cli/aictl"
  [agent]="services/agent/assisted-agent"
)
IMAGES=(inventory orchestrator image gateway agent)

# The extra packages packages.txt lists for image $1.
listed_packages() {
  sed -n "s/^$1:[[:space:]]*//p" "$IMAGES_DIR/packages.txt" | tr ' ' '\n' | sed '/^$/d'
}

# Debian packages the shared libraries of the given binaries come from.
runtime_packages() {
  local libs
  libs=$(ldd "$@" | awk '/=> \// { print $3 }' | sort -u | xargs -r readlink -f)
  [ -n "$libs" ] || return 0
  # dpkg knows a library under /usr/lib or, before the /usr merge, /lib: ask for both.
  # shellcheck disable=SC2086  # one path per word
  { dpkg -S $libs $(printf '%s\n' $libs | sed 's|^/usr/lib/|/lib/|') 2>/dev/null || true; } |
    cut -d: -f1 | tr -d ' ' | tr ',' '\n' | sort -u
}

binary_paths() { local b; for b in ${BINARIES[$1]}; do echo "$BIN/$b"; done; }

image_packages() {
  local paths
  mapfile -t paths < <(binary_paths "$1")
  { runtime_packages "${paths[@]}"; listed_packages "$1"; } | sort -u
}

# THE HOOK for the web UI: the files of ASSISTED_UI_DIR, when given, go to
# /usr/share/assisted/ui in the gateway image.
gateway_ui_files() {
  local root=$1
  [ -n "$UI_DIR" ] || return 0
  [ -d "$UI_DIR" ] || die "ASSISTED_UI_DIR=$UI_DIR is not a directory"
  mkdir -p "$root/usr/share/assisted/ui"
  cp -a "$UI_DIR/." "$root/usr/share/assisted/ui/"
}

inputs_hash() {
  local name=$1 path
  {
    echo "$name $VERSION $REVISION $SOURCE_URL"
    image_packages "$name"
    (cd "$IMAGES_DIR" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
    for path in $(binary_paths "$name"); do sha256sum <"$path"; done
    if [ "$name" = gateway ] && [ -n "$UI_DIR" ]; then
      (cd "$UI_DIR" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
    fi
  } | sha256sum | cut -c1-16
}

# A root file system of exactly these packages (and what they depend on), cached by the list.
base_root() {
  local include=$1 base
  base="$OUT_ROOT/base-$(printf '%s' "$include" | sha256sum | cut -c1-16)"
  if [ ! -d "$base" ]; then
    mmdebstrap --variant=extract --include="$include" bookworm "$base.tmp" >"$WORK/mmdebstrap.log" 2>&1 ||
      { tail -n 30 "$WORK/mmdebstrap.log" >&2; rm -rf --one-file-system "$base.tmp"; die "mmdebstrap failed"; }
    mv "$base.tmp" "$base"
  fi
  echo "$base"
}

# Turns a copy of the packages' root into the image's root: binaries, user, CA bundle, no
# shell, no documentation or package caches.
make_root() {
  local name=$1 root=$2 path
  rm -rf "$root"/usr/share/{doc,man,info,locale,lintian} "$root"/var/cache/* "$root"/var/lib/apt/lists/* \
    "$root"/var/log/*
  # No maintainer script ran: make the CA bundle update-ca-certificates would make.
  if [ -d "$root/usr/share/ca-certificates" ]; then
    mkdir -p "$root/etc/ssl/certs"
    find "$root/usr/share/ca-certificates" -name '*.crt' -print0 | sort -z | xargs -0 cat \
      >"$root/etc/ssl/certs/ca-certificates.crt"
  fi
  # Nothing here runs a shell: remove any a package brought along (the agent's tools included).
  rm -f "$root"/{bin,usr/bin}/{sh,bash,rbash,dash}
  local shells
  shells=$(find "$root" \( -name sh -o -name bash -o -name dash -o -name busybox \) \( -type f -o -type l \))
  [ -z "$shells" ] || die "the $name image would carry a shell: $shells"
  mkdir -p "$root/etc" "$root/usr/bin" "$root/tmp" "$root/var/lib/assisted"
  chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnonroot:x:%d:%d:nonroot:/var/lib/assisted:/usr/sbin/nologin\n' \
    "$NONROOT" "$NONROOT" >"$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:%d:\n' "$NONROOT" >"$root/etc/group"
  # The image service's default --image-cache-dir is /var/lib/assisted/images.
  mkdir -p "$root/var/lib/assisted/images"
  chown -R "$NONROOT:$NONROOT" "$root/var/lib/assisted"
  for path in $(binary_paths "$name"); do
    install -m 0755 "$path" "$root/usr/bin/$(basename "$path")"
    strip --strip-unneeded "$root/usr/bin/$(basename "$path")"
  done
  [ "$name" = gateway ] && gateway_ui_files "$root"
  ldconfig -r "$root"
  # The proof that the libraries suffice: every binary runs in that root.
  for path in $(binary_paths "$name"); do
    chroot --userspec="$NONROOT:$NONROOT" "$root" "/usr/bin/$(basename "$path")" --version \
      >/dev/null 2>"$WORK/smoke.log" ||
      { cat "$WORK/smoke.log" >&2; die "$(basename "$path") does not run in the $name image's root"; }
  done
}

STORAGE=(--root "$OUT_ROOT/containers/storage" --runroot "$OUT_ROOT/containers/run" --storage-driver vfs)

# The OCI image of root $2 as an oci-archive at $3.
commit_image() {
  local name=$1 root=$2 archive=$3 ctr entry
  entry=$(basename "$(binary_paths "$name" | head -n 1)")
  ctr=$(buildah "${STORAGE[@]}" from --quiet scratch)
  buildah "${STORAGE[@]}" copy --quiet "$ctr" "$root" / >/dev/null
  buildah "${STORAGE[@]}" config \
    --user "$NONROOT:$NONROOT" --workingdir / --entrypoint "[\"/usr/bin/$entry\"]" --cmd '' \
    --env PATH=/usr/bin:/bin --os linux --arch amd64 \
    --label "org.opencontainers.image.title=assisted-$name" \
    --label "org.opencontainers.image.version=$VERSION" \
    --label "org.opencontainers.image.revision=$REVISION" \
    --label "org.opencontainers.image.source=$SOURCE_URL" \
    --label "org.opencontainers.image.description=assisted $name (Debian 12 packages, no shell)" \
    "$ctr"
  buildah "${STORAGE[@]}" commit --quiet --format oci --timestamp 0 --disable-compression=false --rm "$ctr" \
    "oci-archive:$archive:assisted-$name:$VERSION" >/dev/null
}

# What a registry and a kubelet will read from the archive: user, entrypoint and labels.
VERIFY_PY='
import json, sys
name, version, revision = sys.argv[1:4]
config = json.load(sys.stdin)["config"]
labels = config.get("Labels", {})
want = {"org.opencontainers.image.version": version, "org.opencontainers.image.revision": revision,
        "org.opencontainers.image.title": "assisted-" + name}
bad = [key for key, value in want.items() if labels.get(key) != value]
if config.get("User") != "65532:65532":
    bad.append("user %r" % config.get("User"))
if not (config.get("Entrypoint") or [""])[0].startswith("/usr/bin/"):
    bad.append("entrypoint")
if bad:
    sys.exit("images: %s: wrong %s" % (name, ", ".join(bad)))
'
# Then the archive, read back as a container, runs its entrypoint (--version). Isolation chroot:
# buildah's default OCI runtime needs namespaces a CI sandbox may not give.
verify_archive() {
  local ctr status=0
  skopeo inspect --config "oci-archive:$2" | python3 -c "$VERIFY_PY" "$1" "$VERSION" "$REVISION" ||
    die "$1: the archive's image config is not what was asked (or skopeo cannot read it)"
  ctr=$(buildah "${STORAGE[@]}" from --quiet "oci-archive:$2")
  buildah "${STORAGE[@]}" run --isolation chroot "$ctr" -- \
    "$(buildah "${STORAGE[@]}" inspect --format '{{index .OCIv1.Config.Entrypoint 0}}' "$ctr")" \
    --version >/dev/null 2>"$WORK/run.log" || status=$?
  buildah "${STORAGE[@]}" rm "$ctr" >/dev/null
  [ "$status" -eq 0 ] || { cat "$WORK/run.log" >&2; die "$1: the image's entrypoint does not run"; }
}

mkdir -p "$OUT_ROOT/store" "$OUT_ROOT/current"
WORK=$(mktemp -d "$OUT_ROOT/work.XXXXXX")
trap 'rm -rf --one-file-system "$WORK"' EXIT
for name in "${IMAGES[@]}"; do
  for path in $(binary_paths "$name"); do [ -x "$path" ] || die "no binary $path"; done
  hash=$(inputs_hash "$name")
  archive="$OUT_ROOT/store/$name-$hash.tar"
  if [ ! -s "$archive" ]; then
    say "$name: root file system ($(image_packages "$name" | wc -l) packages and their dependencies)"
    base=$(base_root "$(image_packages "$name" | paste -sd, -)")
    rm -rf --one-file-system "$WORK/root"
    cp -a "$base" "$WORK/root"
    make_root "$name" "$WORK/root"
    say "$name: buildah commit"
    commit_image "$name" "$WORK/root" "$archive.tmp"
    verify_archive "$name" "$archive.tmp"
    mv "$archive.tmp" "$archive"
  fi
  ln -sfn "../store/$name-$hash.tar" "$OUT_ROOT/current/$name.tar"
  # Every commit changes the revision label: keep the newest archive of each image only.
  find "$OUT_ROOT/store" -maxdepth 1 -name "$name-*.tar" ! -name "$name-$hash.tar" -delete
  printf 'assisted-%-13s %6s  %s\n' "$name" "$(du -h "$archive" | cut -f1)" "$archive"
done
# The archives are the output: nothing needs to stay in buildah's private storage.
buildah "${STORAGE[@]}" rmi --all >/dev/null 2>&1 || true
