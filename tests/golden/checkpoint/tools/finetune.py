"""Part of the golden case: shipped with the bundle, never run."""
