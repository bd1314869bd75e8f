"""assisted_fuzzer: one libFuzzer target, built two ways from the same LLVMFuzzerTestOneInput.

  <name>_fuzzer       the libFuzzer binary. Tagged manual: only `./dev fuzz` builds it, with
                      clang and --config=fuzz (-fsanitize=fuzzer,address,undefined).
  <name>_replay_test  a plain cc_test in the regular (gcc) build: replays every file of
                      corpus/<name>/ and `mutations` seeded mutations of them, so `./dev test`
                      keeps each target compiling and running without a second toolchain.
"""

def assisted_fuzzer(name, srcs, deps, mutations = 5000):
    # testonly: targets may use test helpers (e.g. a freshly made signing key).
    native.cc_library(
        name = name + "_target",
        testonly = True,
        srcs = srcs,
        deps = deps,
        # LLVMFuzzerTestOneInput is only referenced by libFuzzer or the replay driver.
        alwayslink = True,
    )
    native.cc_binary(
        name = name + "_fuzzer",
        testonly = True,
        linkopts = ["-fsanitize=fuzzer"],
        tags = ["manual"],
        deps = [":" + name + "_target"],
    )
    native.cc_test(
        name = name + "_replay_test",
        size = "small",
        args = [
            "fuzz/corpus/" + name,
            str(mutations),
        ],
        data = native.glob(["corpus/" + name + "/*"]),
        deps = [
            ":" + name + "_target",
            ":replay_main",
        ],
    )
