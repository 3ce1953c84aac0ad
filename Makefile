# OpenBench convention: `make EXE=<path>` builds an optimised binary at <path>.
EXE ?= rookery

.PHONY: all native test clean

# Portable release build (what `cargo build --release` gives).
all:
	cargo build --release
	cp target/release/rookery $(EXE)

# Tuned for the machine it is built on (not portable to older CPUs).
native:
	RUSTFLAGS="-C target-cpu=native" cargo build --release --target-dir target/native
	cp target/native/release/rookery $(EXE)

test:
	cargo test

clean:
	cargo clean
