"""go_testdata: realgo/testdata/*.go built by the real Go toolchains, and
what binutils and the Go toolchain say about each binary.

Per Go version V and GOARCH A (genrules, like //goprogs's):
  testdata/goV/A/hello           the binary (not stripped: the reader needs DWARF)
  testdata/goV/A/hello.symbols   `objdump -t` by the port's binutils (platforms/NAME/port.env's OBJDUMP)
  testdata/goV/A/hello.grow.s    `objdump -d --disassemble=main.grow`
  testdata/goV/A/hello.gonm      `go tool nm -size -sort address` of that version
and testdata/goV/amd64/hello.nodebug (`objcopy --strip-debug`). The
filegroup `testdata_goV_A` holds the four files of one (V, A).
"""

load("@safepoint_env//:env.bzl", "TOOLS")

REALGO_GO_VERSIONS = ["1.19"]

# GOARCH -> the port folder whose port.env names its objdump.
REALGO_GO_ARCHS = ["amd64", "arm64", "loong64", "riscv64"]

def _env(version, arch):
    return [
        "set -eu",
        "top=$$PWD",
        "export SAFEPOINT_TOOLS=$${SAFEPOINT_TOOLS:-%s}" % TOOLS,
        "export GOROOT=$$($(location //goprogs:gotool.sh) %s)" % version,
        "tmp=$$(mktemp -d \"$${TMPDIR:-/tmp}/realgo.XXXXXX\")",
        "trap 'chmod -R u+w \"$$tmp\"; rm -rf \"$$tmp\"' EXIT",
        "export HOME=$$tmp/home GOPATH=$$tmp/gopath GOCACHE=$$tmp/cache GOENV=off",
        "export GO111MODULE=off CGO_ENABLED=0 GOOS=linux GOARCH=%s GOFLAGS= GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off" % arch,
    ]

def go_testdata(name, program = "hello", versions = REALGO_GO_VERSIONS, archs = REALGO_GO_ARCHS):
    groups = []
    for v in versions:
        for a in archs:
            d = "testdata/go%s/%s" % (v, a)
            bin = "%s/%s" % (d, program)
            native.genrule(
                name = "build_%s_go%s_%s" % (program, v, a),
                srcs = ["testdata/%s.go" % program],
                outs = [bin],
                tools = ["//goprogs:gotool.sh"],
                cmd = "\n".join(_env(v, a) + [
                    "mkdir -p \"$$GOPATH/src/realgo/%s\"" % program,
                    "cp $(location testdata/%s.go) \"$$GOPATH/src/realgo/%s/main.go\"" % (program, program),
                    "cd \"$$GOPATH/src\"",
                    "\"$$GOROOT/bin/go\" build -trimpath -o \"$$top/$@\" realgo/%s" % program,
                ]),
                message = "Building realgo/testdata/%s.go with Go %s for %s" % (program, v, a),
            )
            native.genrule(
                name = "describe_%s_go%s_%s" % (program, v, a),
                srcs = [bin, "//platforms/%s:port.env" % a],
                outs = [bin + ".symbols", bin + ".grow.s", bin + ".gonm"],
                tools = ["//goprogs:gotool.sh"],
                cmd = "\n".join(_env(v, a) + [
                    "TOOLS=$$SAFEPOINT_TOOLS",
                    ". $(location //platforms/%s:port.env)" % a,
                    "b=$(location %s)" % bin,
                    "$$OBJDUMP -t \"$$b\" >$(location %s.symbols)" % bin,
                    "$$OBJDUMP -d --disassemble=main.grow \"$$b\" >$(location %s.grow.s)" % bin,
                    "\"$$GOROOT/bin/go\" tool nm -size -sort address \"$$b\" >$(location %s.gonm)" % bin,
                ]),
                message = "Describing the Go %s %s test binary" % (v, a),
            )
            files = [bin, bin + ".symbols", bin + ".grow.s", bin + ".gonm"]
            if a == "amd64":
                native.genrule(
                    name = "nodebug_%s_go%s_%s" % (program, v, a),
                    srcs = [bin],
                    outs = [bin + ".nodebug"],
                    cmd = "objcopy --strip-debug $< $@",
                )
                files.append(bin + ".nodebug")
            native.filegroup(name = "testdata_go%s_%s" % (v, a), srcs = files)
            groups.append(":testdata_go%s_%s" % (v, a))
    native.filegroup(name = name, srcs = groups)
