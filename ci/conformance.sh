#!/usr/bin/env bash
# The main job: the conformance suite (and the platform checks it stands on)
# on every target, with a matrix of results per case and target.
#
#   ci/conformance.sh [--arch=amd64,arm64,...]
#
# Same flags and logs as ci/test.sh; installs what it needs on first use.
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in -h|--help) sed -n '2,6p' "$0"; exit 0 ;; esac
exec bash "$here/test.sh" --matrix "$@" -- --test_tag_filters=conformance,platform
