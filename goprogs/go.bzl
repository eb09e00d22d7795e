"""go_programs: Go programs built by the real Go toolchains, for every port.

No rules_go (Bazel 4.2, offline): genrules that call the go command of a
toolchain ci/setup.sh installed outside the workspace. goprogs/gotool.sh
finds its GOROOT from $SAFEPOINT_TOOLS (.bazelrc passes it to actions with
--action_env; when unset, the value @safepoint_env recorded, as the cc
toolchains do).

For each version V and GOARCH A one action builds every program with one
fresh GOCACHE (the standard library is compiled once per action, not once
per program) into goprogs/V/A/P. Then per program P a filegroup
P_goV_A whose one file is that binary, per (V, A) a filegroup goV_A, and
a filegroup `all`. Binaries are not stripped: the harness reads DWARF.

The toolchains are not declared inputs (they live outside the workspace,
like the cc toolchains' clang): after a toolchain changes, `bazel clean`.
"""

load("@safepoint_env//:env.bzl", "TOOLS")

GO_VERSIONS = ["1.19", "1.24", "1.26"]
GO_ARCHS = ["amd64", "arm64", "loong64", "riscv64"]

def _cmd(version, arch, programs):
    pkgs = " ".join(["goprogs/" + p for p in programs])
    return "\n".join([
        "set -eu",
        "top=$$PWD",
        "export SAFEPOINT_TOOLS=$${SAFEPOINT_TOOLS:-%s}" % TOOLS,
        "export GOROOT=$$($(location gotool.sh) %s)" % version,
        # Everything the go command writes goes into a temporary directory
        # of this action (actions may not write to $$HOME), removed at exit.
        "tmp=$$(mktemp -d \"$${TMPDIR:-/tmp}/goprogs.XXXXXX\")",
        "trap 'chmod -R u+w \"$$tmp\"; rm -rf \"$$tmp\"' EXIT",
        "export HOME=$$tmp/home GOPATH=$$tmp/gopath GOCACHE=$$tmp/cache GOENV=off",
        "export GO111MODULE=off CGO_ENABLED=0 GOOS=linux GOARCH=%s GOFLAGS= GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off" % arch,
        "src=$$(dirname $(location gotool.sh))",
        # Under GOPATH/src/goprogs/P, so that with -trimpath the file names
        # in the binary (DWARF, pclntab) are goprogs/P/main.go wherever the
        # action ran.
        "for p in %s; do mkdir -p \"$$GOPATH/src/goprogs/$$p\"; cp \"$$src/$$p\"/*.go \"$$GOPATH/src/goprogs/$$p/\"; done" % " ".join(programs),
        "mkdir -p \"$$top/$(RULEDIR)/%s/%s\"" % (version, arch),
        "cd \"$$GOPATH/src\"",
        "\"$$GOROOT/bin/go\" build -trimpath -o \"$$top/$(RULEDIR)/%s/%s/\" %s" % (version, arch, pkgs),
    ])

def go_programs(name, programs, versions = GO_VERSIONS, archs = GO_ARCHS):
    """Every program (a folder of package main) for every version and arch.

    Args:
      name: the filegroup of every binary.
      programs: folder names under this package.
      versions: Go versions, as goprogs/gotool.sh knows them.
      archs: GOARCH values.
    """
    groups = []
    for v in versions:
        for a in archs:
            outs = ["%s/%s/%s" % (v, a, p) for p in programs]
            native.genrule(
                name = "build_go%s_%s" % (v, a),
                srcs = native.glob(["%s/*.go" % p for p in programs]),
                outs = outs,
                tools = ["gotool.sh"],
                cmd = _cmd(v, a, programs),
                message = "Building %d Go programs with Go %s for %s" % (len(programs), v, a),
            )
            for p in programs:
                native.filegroup(
                    name = "%s_go%s_%s" % (p, v, a),
                    srcs = [":%s/%s/%s" % (v, a, p)],
                )
            native.filegroup(name = "go%s_%s" % (v, a), srcs = outs)
            groups.append(":go%s_%s" % (v, a))
    native.filegroup(name = name, srcs = groups)
