"""Spec loading: parse YAML or JSON, resolve ``$ref``s across files, validate."""
