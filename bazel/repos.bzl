"""Repository rules that keep the workspace offline and machine-independent."""

def _debian_rules_cc_impl(rctx):
    src = rctx.path(rctx.attr.path)
    if not src.exists:
        fail("rules_cc not found at %s: run ci/setup.sh (package bazel-rules-cc)" % src)
    res = rctx.execute(["cp", "-r", str(src) + "/.", "."])
    if res.return_code != 0:
        fail("copying rules_cc failed: " + res.stderr)
    for f in ["cc/private/rules_impl/compiler_flag.bzl", "cc/private/rules_impl/cc_flags_supplier.bzl"]:
        text = rctx.read(f)
        text = text.replace(', "use_cpp_toolchain")', ")")
        text = text.replace("use_cpp_toolchain()", '["@bazel_tools//tools/cpp:toolchain_type"]')
        rctx.file(f, text)

debian_rules_cc = repository_rule(
    implementation = _debian_rules_cc_impl,
    attrs = {"path": attr.string(mandatory = True)},
    local = True,
)

def _remote_coverage_tools_stub_impl(rctx):
    rctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])
filegroup(name = "coverage_report_generator", srcs = ["coverage_report_generator.sh"])
filegroup(name = "lcov_merger", srcs = ["lcov_merger.sh"])
""")
    for f in ["coverage_report_generator.sh", "lcov_merger.sh"]:
        rctx.file(f, "#!/bin/sh\necho 'coverage is not available offline' >&2\nexit 1\n", executable = True)

remote_coverage_tools_stub = repository_rule(implementation = _remote_coverage_tools_stub_impl)

def _safepoint_env_impl(rctx):
    tools = rctx.os.environ.get("SAFEPOINT_TOOLS", "/opt/safepoint-tools")
    rctx.file("BUILD", "")
    rctx.file("env.bzl", "TOOLS = %r\n" % tools)

safepoint_env = repository_rule(
    implementation = _safepoint_env_impl,
    environ = ["SAFEPOINT_TOOLS"],
    local = True,
)
