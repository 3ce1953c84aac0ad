# OpenBench convention: `make EXE=<path>` builds an optimised binary at <path>.
EXE ?= rookery
# `make FEATURES=tune` builds the SPSA tuning binary (docs/tuning.md).
FEATURES ?=
CARGO_FEATURES = $(if $(FEATURES),--features $(FEATURES))

.PHONY: all native test clean

# Portable release build (what `cargo build --release` gives).
all:
	cargo build --release $(CARGO_FEATURES)
	cp target/release/rookery $(EXE)

# Tuned for the machine it is built on (not portable to older CPUs).
native:
	RUSTFLAGS="-C target-cpu=native" cargo build --release $(CARGO_FEATURES) --target-dir target/native
	cp target/native/release/rookery $(EXE)

test:
	cargo test

clean:
	cargo clean
