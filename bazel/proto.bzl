"""assisted_proto_library: .proto files -> C++ message (+ gRPC) library, with the system protoc.

Bazel 4.2 from Debian has no usable rules_proto/grpc rules offline, so this macro runs Debian's
`protoc` and `grpc_cpp_plugin` in a genrule. The proto root is //proto: a file at
proto/assisted/types/v1/host.proto is imported as "assisted/types/v1/host.proto" and its header is
included as "assisted/types/v1/host.pb.h".

Targets made for `name`:
  :<name>        cc_library with the generated code (what C++ code depends on)
  :<name>_srcs   filegroup with these .proto files and those of `deps` (protoc's inputs)
  :<name>_gen    the genrule
  :<name>_descriptor_set  a FileDescriptorSet of `srcs` and all they import, with source info (the
                 comments), for tools that document the messages (e.g. the OpenAPI generator)
"""

_PROTO_ROOT = "proto"

def assisted_proto_library(name, srcs, deps = [], grpc = False, proto_root = _PROTO_ROOT, visibility = None):
    """Generates C++ code for `srcs` and wraps it in a cc_library.

    Args:
      name: the cc_library's name.
      srcs: .proto files in this package.
      deps: other assisted_proto_library targets whose files `srcs` import.
      grpc: also run grpc_cpp_plugin (for files that declare services).
      proto_root: workspace-relative folder that import paths are relative to.
      visibility: visibility of the cc_library and the filegroup.
    """
    package = native.package_name()
    if not package.startswith(proto_root + "/") and package != proto_root:
        fail("assisted_proto_library must live under //%s" % proto_root)
    rel = package[len(proto_root) + 1:]

    native.filegroup(
        name = name + "_srcs",
        srcs = srcs + [d + "_srcs" for d in deps],
        visibility = visibility,
    )

    bases = [(rel + "/" if rel else "") + s[:-len(".proto")] for s in srcs]
    hdrs = [s[:-len(".proto")] + ".pb.h" for s in srcs]
    ccs = [s[:-len(".proto")] + ".pb.cc" for s in srcs]
    plugin_flags = ""
    if grpc:
        hdrs += [s[:-len(".proto")] + ".grpc.pb.h" for s in srcs]
        ccs += [s[:-len(".proto")] + ".grpc.pb.cc" for s in srcs]
        plugin_flags = "--plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin --grpc_out=$(GENDIR)/%s " % proto_root

    native.genrule(
        name = name + "_gen",
        srcs = [":" + name + "_srcs"],
        outs = hdrs + ccs,
        cmd = ("/usr/bin/protoc -I%s -I/usr/include --cpp_out=$(GENDIR)/%s %s" % (proto_root, proto_root, plugin_flags)) +
              " ".join(["%s/%s.proto" % (proto_root, b) for b in bases]),
        message = "protoc %s" % package,
    )

    # Comments are what documentation generators read; the C++ code never needs them.
    native.genrule(
        name = name + "_descriptor_set",
        srcs = [":" + name + "_srcs"],
        outs = [name + "_descriptor_set.pb"],
        cmd = ("/usr/bin/protoc -I%s -I/usr/include --include_imports --include_source_info " % proto_root) +
              "--descriptor_set_out=$@ " +
              " ".join(["%s/%s.proto" % (proto_root, b) for b in bases]),
        message = "protoc descriptor set %s" % package,
        visibility = visibility,
    )

    cc_deps = ["//bazel/system:protobuf"] + deps
    if grpc:
        cc_deps.append("//bazel/system:grpc")
    native.cc_library(
        name = name,
        srcs = ccs,
        hdrs = hdrs,
        strip_include_prefix = "/" + proto_root,
        # Generated code trips warnings we hold our own code to; keep it quiet.
        copts = ["-Wno-unused-parameter"],
        deps = cc_deps,
        visibility = visibility,
    )

def system_grpc_proto_library(name, srcs, proto_root = "/usr/share/grpc-proto", testonly = False, visibility = None):
    """C++ message + gRPC code for .proto files installed on the system (Debian's grpc-proto).

    Used for client stubs of gRPC's own services (health, reflection) in tests. Do not link it
    into a binary that also links //bazel/system:grpc_reflection, which has its own copy.

    Args:
      name: the cc_library's name.
      srcs: paths relative to `proto_root`, e.g. "grpc/health/v1/health.proto"; included as
        "grpc/health/v1/health.grpc.pb.h".
      proto_root: absolute folder the system .proto files live under.
      testonly: as for any rule.
      visibility: of the cc_library.
    """
    package = native.package_name()
    stems = [s[:-len(".proto")] for s in srcs]
    hdrs = [s + ".pb.h" for s in stems] + [s + ".grpc.pb.h" for s in stems]
    ccs = [s + ".pb.cc" for s in stems] + [s + ".grpc.pb.cc" for s in stems]
    native.genrule(
        name = name + "_gen",
        outs = hdrs + ccs,
        cmd = ("/usr/bin/protoc -I%s -I/usr/include --cpp_out=$(GENDIR)/%s " % (proto_root, package)) +
              ("--plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin --grpc_out=$(GENDIR)/%s " % package) +
              " ".join(["%s/%s" % (proto_root, s) for s in srcs]),
        message = "protoc (system) %s" % package,
        testonly = testonly,
    )
    native.cc_library(
        name = name,
        srcs = ccs,
        hdrs = hdrs,
        includes = ["."],
        copts = ["-Wno-unused-parameter"],
        deps = ["//bazel/system:grpc", "//bazel/system:protobuf"],
        testonly = testonly,
        visibility = visibility,
    )
