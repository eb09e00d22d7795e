"""safepoint_cc_toolchain: a clang-16 cc toolchain for one port, registered by constraint.

Instantiated once per port by the generated @safepoint_ports//:BUILD (bazel/ports.bzl)."""

load("@bazel_tools//tools/cpp:unix_cc_toolchain_config.bzl", "cc_toolchain_config")

def safepoint_cc_toolchain(name, wrapper, cpu, triple, constraint, include_dirs):
    cc_toolchain_config(
        name = name + "_config",
        cpu = cpu,
        compiler = "clang",
        toolchain_identifier = "safepoint-" + name,
        host_system_name = "x86_64-linux-gnu",
        target_system_name = triple,
        target_libc = "glibc",
        abi_version = "clang",
        abi_libc_version = "glibc",
        cxx_builtin_include_directories = include_dirs,
        tool_paths = {
            "gcc": wrapper,
            "cpp": "/usr/bin/clang-cpp-16",
            "ar": "/usr/bin/llvm-ar-16",
            "ld": "/usr/bin/ld.lld-16",
            "nm": "/usr/bin/llvm-nm-16",
            "objcopy": "/usr/bin/llvm-objcopy-16",
            "objdump": "/usr/bin/llvm-objdump-16",
            "strip": "/usr/bin/llvm-strip-16",
            "gcov": "/bin/false",
            "llvm-cov": "/bin/false",
        },
        compile_flags = [
            "-fno-omit-frame-pointer",
            "-Wall",
            "-Wno-unused-parameter",
        ],
        cxx_flags = ["-std=c++20"],
        link_flags = ["-pthread"],
        link_libs = ["-lstdc++", "-lm"],
        opt_compile_flags = ["-O2", "-DNDEBUG"],
        dbg_compile_flags = ["-g"],
        unfiltered_compile_flags = [
            "-no-canonical-prefixes",
            "-Wno-builtin-macro-redefined",
            "-D__DATE__=\"redacted\"",
            "-D__TIMESTAMP__=\"redacted\"",
            "-D__TIME__=\"redacted\"",
        ],
        supports_start_end_lib = False,
    )
    native.filegroup(
        name = name + "_files",
        srcs = [wrapper],
    )
    native.cc_toolchain(
        name = name + "_cc",
        all_files = ":" + name + "_files",
        ar_files = ":" + name + "_files",
        as_files = ":" + name + "_files",
        compiler_files = ":" + name + "_files",
        dwp_files = ":" + name + "_files",
        linker_files = ":" + name + "_files",
        objcopy_files = ":" + name + "_files",
        strip_files = ":" + name + "_files",
        supports_param_files = 0,
        toolchain_config = ":" + name + "_config",
        toolchain_identifier = "safepoint-" + name,
    )
    native.toolchain(
        name = "cc_toolchain_" + name,
        exec_compatible_with = ["@platforms//cpu:x86_64", "@platforms//os:linux"],
        target_compatible_with = [constraint, "@platforms//os:linux"],
        toolchain = ":" + name + "_cc",
        toolchain_type = "@bazel_tools//tools/cpp:toolchain_type",
    )
