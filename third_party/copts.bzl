"""Project-wide compiler options, in one place."""

TOPORR_COPTS = [
    "-Wall",
    "-Wextra",
    "-Wno-unused-parameter",
    "-Wno-sign-compare",
    "-Wno-missing-field-initializers",
]

# Tests and benchmarks read ../shared/fabrics through this variable (set by .ci/run and
# the README's test command); tests that need it fail loudly when it is unset.
TOPORR_TEST_DATA_ENV = "TOPORR_SHARED_DIR"
