"""layering_sources: a package's sources as the layering test reads them."""

def layering_sources(extra = []):
    """The package's .h, .cc and .S files (and `extra` globs) as :layering_sources.

    //tools:layering_test takes every package's as declared inputs, so it
    reads exactly the tree Bazel builds and is cached like any test.
    """
    native.filegroup(
        name = "layering_sources",
        srcs = native.glob(["*.h", "*.cc", "*.S"] + extra),
        visibility = ["//tools:__pkg__"],
    )
