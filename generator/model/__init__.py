"""The intermediate model: what the SDK will contain, independent of OpenAPI's shape."""
