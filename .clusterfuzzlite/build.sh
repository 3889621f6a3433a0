#!/bin/bash -eu
# Builds mcpspec's cargo-fuzz targets (fuzz/) the way ClusterFuzzLite and
# OSS-Fuzz expect: each target's binary in $OUT, with its seed corpus
# ($OUT/<target>_seed_corpus.zip, from fuzz/corpus/<target>/) and its
# dictionary ($OUT/<target>.dict, from fuzz/dict/<target>.dict).
#
# Run from the repository root (the Dockerfile's WORKDIR). In the OSS-Fuzz
# images cargo-fuzz and nightly Rust are installed and $SANITIZER picks the
# sanitizer; elsewhere (harness/cli/tests/fuzz_build.rs, on stable Rust)
# FUZZ_SANITIZER=none builds the targets with coverage instrumentation only.
# Optional: FUZZ_PROFILE=dev (see below).
# Needs: cargo-fuzz, zip or python3.

out="${OUT:?set OUT to the directory the fuzzers go to}"
mkdir -p "$out"
cd fuzz

# OSS-Fuzz builds optimised (-O); FUZZ_PROFILE=dev builds faster, unoptimised
# (the local test uses it: the script's work is the same).
if [ "${FUZZ_PROFILE:-release}" = dev ]; then
    flags=(--dev)
    profile=debug
else
    flags=(-O)
    profile=release
fi
if [ -n "${FUZZ_SANITIZER:-}" ]; then
    flags+=(-s "$FUZZ_SANITIZER")
else
    # cargo-fuzz knows these; for the others (coverage, undefined) the
    # OSS-Fuzz image's own flags apply.
    case "${SANITIZER:-}" in
        address | memory | thread | leak) flags+=(-s "$SANITIZER") ;;
    esac
fi
cargo fuzz build "${flags[@]}"

triple="$(rustc -vV | sed -n 's/^host: //p')"
# cargo-fuzz builds into the target directory cargo is told of, if any.
bin_dir="${CARGO_TARGET_DIR:-target}/$triple/$profile"
for target in $(cargo fuzz list); do
    cp "$bin_dir/$target" "$out/$target"
    corpus="corpus/$target"
    if [ -d "$corpus" ]; then
        rm -f "$out/${target}_seed_corpus.zip"
        if command -v zip >/dev/null 2>&1; then
            (cd "$corpus" && zip -q -r "$out/${target}_seed_corpus.zip" .)
        else
            python3 -c 'import shutil, sys; shutil.make_archive(sys.argv[1], "zip", sys.argv[2])' \
                "$out/${target}_seed_corpus" "$corpus"
        fi
    fi
    if [ -f "dict/$target.dict" ]; then
        cp "dict/$target.dict" "$out/$target.dict"
    fi
done
