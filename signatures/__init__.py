"""The catalogue of built-in Ops (TOML data), shipped as kantensor._catalogue."""
